// `robots-gate report`: one self-contained HTML file for a crawl (no scripts, no external
// resources: it opens from a mail attachment or an archive years later). Timelines are inline SVG,
// each with a table alternative for screen readers and for copying numbers out.
import type { AttemptOutcome } from '../audit/types.js';
import {
  OUTCOMES,
  blocked,
  hostStats,
  notUrlLines,
  originHost,
  policyChanges,
  robotsFetches,
  timeline,
  totals,
  type CrawlRecord,
  type TimelineEntry,
} from './crawl-record.js';
import { esc } from './escape.js';
import { formatBytes, formatMs, formatTime, reasonWithCause } from './format.js';
import { diffPolicies } from './policy-diff.js';
import { timelineAxis } from './timeline-axis.js';
import { sitemapsSection } from './sitemaps-section.js';
import { usageSection } from './usage-section.js';

export interface ReportOptions {
  /** Shown as the report's subject (usually the audit DIR). */
  title?: string;
  /** Requests drawn per host timeline; the rest are counted, not drawn. Default 400. */
  maxTimelineRows?: number;
  /** Hosts given a timeline (those with the most requests); the rest are counted. Default 100. */
  maxTimelineHosts?: number;
  /** Rows of the per-host table (most requests first); the rest are counted. Default 2000. */
  maxHostRows?: number;
  /** Blocked URLs listed; the rest are counted. Default 1000. */
  maxBlockedRows?: number;
  /** Input lines that were not URLs listed; the rest are counted. Default 1000. */
  maxNotUrlRows?: number;
  /** When the report was made (epoch ms); default now. Fixed in tests. */
  generatedAtMs?: number;
}

export const OUTCOME_COLORS: Record<AttemptOutcome, string> = {
  fetched: '#2e7d32',
  blocked: '#c62828',
  skipped: '#757575',
  error: '#e65100',
  overridden: '#6a1b9a',
};

/** Where a wait came from (AttemptRow.waitReason); `none` when nothing was recorded. */
export const WAIT_COLORS: Record<string, string> = {
  'crawl-delay': '#1565c0',
  floor: '#78909c',
  override: '#ab47bc',
  backoff: '#f9a825',
  none: '#cfd8dc',
};

const WAIT_LABELS: Record<string, string> = {
  'crawl-delay': 'Crawl-delay (robots.txt)',
  floor: 'floor (our minimum interval)',
  override: 'override (configured interval)',
  backoff: 'back-off (after 429/5xx)',
  none: 'no interval recorded',
};

const STYLE = `
:root { color-scheme: light; --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#fff; --soft:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1.05rem; margin: 24px 0 6px; }
.sub { color: var(--muted); margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 10px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: var(--soft); }
.card b { display: block; font-size: 1.3rem; white-space: nowrap; }
.card span { color: var(--muted); font-size: .85rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, .nw { white-space: nowrap; }
/* Tables fit the page: long names and URLs wrap inside their cell; a table that still cannot fit
   (a very narrow window) scrolls inside its own box, never the page. */
.scroll { overflow-x: auto; max-width: 100%; }
td.host { overflow-wrap: break-word; min-width: 10em; }
#hosts th { font-size: .8rem; }
#hosts th, #hosts td { padding: 4px 6px; }
#hosts td.interval { white-space: normal; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
.url { word-break: break-all; min-width: 12em; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; font-size: .85rem; color: var(--muted); margin: 4px 0 8px; }
.sw { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-right: 4px; }
.warn { color: #b71c1c; font-weight: 600; }
.ok { color: #2e7d32; }
svg { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
details { margin: 6px 0; }
summary { cursor: pointer; color: #0b57d0; }
.diff { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; border: 1px solid var(--line); border-radius: 6px; overflow: auto; }
.diff div { white-space: pre; padding: 0 8px; }
.diff .added { background: #e6ffec; }
.diff .removed { background: #ffebe9; }
.diff .ln { display: inline-block; width: 3.5em; color: var(--muted); user-select: none; }
.empty { color: var(--muted); font-style: italic; }
`;

function card(label: string, value: string | number): string {
  return `<div class="card"><b>${esc(value)}</b><span>${esc(label)}</span></div>`;
}

/** The robots.txt request on a timeline (its stamp says when it was fetched, not how long it took). */
const ROBOTS_COLOR = '#37474f';

function legend(): string {
  const outcomes = OUTCOMES.map((o) => `<span><i class="sw" style="background:${OUTCOME_COLORS[o]}"></i>${esc(o)}</span>`).join('') +
    `<span><i class="sw" style="background:${ROBOTS_COLOR}"></i>robots.txt fetch</span>`;
  const waits = Object.keys(WAIT_COLORS)
    .map((w) => `<span><i class="sw" style="background:${WAIT_COLORS[w]};opacity:.45"></i>${esc(WAIT_LABELS[w])}</span>`)
    .join('');
  return `<div class="legend" aria-hidden="true"><span><b>request:</b></span>${outcomes}</div>
<div class="legend" aria-hidden="true"><span><b>interval before the request:</b></span>${waits}</div>`;
}

/** A host name, escaped, that may wrap after a dot or before the port (never inside a label). */
function wrappableHost(host: string): string {
  return esc(host).replace(/\./g, '.<wbr>').replace(/:/g, '<wbr>:');
}

/** The path and query of a URL, shortened to fit a label. */
function label(url: string, max = 34): string {
  let text = url;
  try {
    const u = new URL(url);
    text = u.pathname + u.search;
  } catch {
    // not a URL: show it as recorded
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A waterfall: one row per request. On each row the shaded band is the interval the host was
 *  given before this request (it runs from the end of the previous response, as src/politeness
 *  counts it), so a polite request's bar starts at or after its band's end. */
function timelineSvg(host: string, entries: TimelineEntry[], changesAt: number[], maxRows: number, robotsAt: number[] = []): string {
  const rows = entries.slice(0, maxRows);
  if (rows.length === 0) return '<p class="empty">No requests.</p>';
  // The robots.txt requests within the drawn span get rows of their own, in time order.
  const drawnEnd = rows[rows.length - 1]!.startMs;
  const fetches = robotsAt.filter((t) => t >= rows[0]!.startMs - 60_000 && t <= drawnEnd);
  const t0 = Math.min(rows[0]!.startMs, fetches[0] ?? Infinity);
  let last = t0;
  let longest = 0;
  for (const e of rows) {
    last = Math.max(last, e.endMs, e.prevEndMs !== null && e.intervalMs ? e.prevEndMs + e.intervalMs : 0);
    longest = Math.max(longest, e.endMs - e.startMs);
  }
  const axis = timelineAxis(last - t0, longest);
  const t1 = t0 + axis.spanMs;
  const width = 1000;
  const left = 230;
  const plotW = width - left - 12;
  const rowH = 16;
  const top = 22;
  const height = top + (rows.length + fetches.length) * rowH + 8;
  const x = (t: number) => left + ((t - t0) / (t1 - t0)) * plotW;
  const parts: string[] = [];
  // Axis: ticks at round offsets from the host's first request.
  axis.ticks.forEach((offset, i) => {
    const xi = x(t0 + offset);
    parts.push(`<line x1="${xi.toFixed(1)}" y1="${top - 4}" x2="${xi.toFixed(1)}" y2="${height - 4}" stroke="#eceff1"/>`);
    const anchor = i === 0 ? 'start' : i === axis.ticks.length - 1 ? 'end' : 'middle';
    parts.push(`<text class="tick" x="${xi.toFixed(1)}" y="14" font-size="11" fill="#57606a" text-anchor="${anchor}">+${esc(formatMs(offset))}</text>`);
  });
  let fi = 0;
  let slot = 0;
  const robotsRow = (at: number) => {
    const y = top + slot++ * rowH;
    parts.push(`<g data-robots="1"><title>${esc(`${host}/robots.txt fetched at ${formatTime(at)} (+${formatMs(at - t0)})`)}</title>`);
    parts.push(`<text x="4" y="${y + rowH - 4}" font-size="11" font-family="ui-monospace, Menlo, monospace" fill="${ROBOTS_COLOR}">robots.txt</text>`);
    parts.push(`<rect x="${x(at).toFixed(1)}" y="${y + 2}" width="3" height="${rowH - 4}" fill="${ROBOTS_COLOR}"/></g>`);
  };
  rows.forEach((e) => {
    while (fi < fetches.length && fetches[fi]! <= e.startMs) robotsRow(fetches[fi++]!);
    const y = top + slot++ * rowH;
    const wait = e.waitReason ?? 'none';
    const title = `${e.url}\n${e.outcome}${e.status !== null ? ` ${e.status}` : ''} at +${formatMs(e.startMs - t0)}` +
      (e.intervalMs !== null ? `\ninterval ${formatMs(e.intervalMs)} (${wait})` : '') +
      (e.gapMs !== null ? `, started ${formatMs(e.gapMs)} after the previous response${e.breach ? ': TOO SOON' : ''}` : '');
    parts.push(`<g><title>${esc(title)}</title>`);
    parts.push(`<text x="4" y="${y + rowH - 4}" font-size="11" font-family="ui-monospace, Menlo, monospace" fill="${e.breach ? '#b71c1c' : '#24292f'}">${esc(label(e.url))}</text>`);
    if (e.intervalMs && e.prevEndMs !== null) {
      const w = Math.max(1, x(e.prevEndMs + e.intervalMs) - x(e.prevEndMs));
      parts.push(`<rect x="${x(e.prevEndMs).toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${WAIT_COLORS[wait] ?? WAIT_COLORS.none}" fill-opacity=".5"/>`);
    }
    const bw = Math.max(3, x(e.endMs) - x(e.startMs));
    const outline = e.breach ? ' stroke="#b71c1c" stroke-width="2"' : '';
    parts.push(`<rect x="${x(e.startMs).toFixed(1)}" y="${y + 2}" width="${bw.toFixed(1)}" height="${rowH - 4}" fill="${OUTCOME_COLORS[e.outcome] ?? '#000'}"${outline}/>`);
    parts.push('</g>');
  });
  for (const at of changesAt) {
    if (at < t0 || at > t1) continue;
    const xc = x(at).toFixed(1);
    parts.push(`<g><title>robots.txt changed at ${esc(formatTime(at))}</title><line x1="${xc}" y1="${top - 2}" x2="${xc}" y2="${height - 2}" stroke="#d81b60" stroke-width="2" stroke-dasharray="4 3"/></g>`);
  }
  const aria = `Timeline of ${rows.length} requests to ${host} over ${formatMs(last - t0)}`;
  return `<svg role="img" aria-label="${esc(aria)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${parts.join('')}</svg>` +
    (entries.length > rows.length ? `<p class="empty">${entries.length - rows.length} later requests are not drawn.</p>` : '');
}

function timelineTable(entries: TimelineEntry[], maxRows: number): string {
  if (entries.length === 0) return '';
  const t0 = entries[0]!.startMs;
  const body = entries
    .slice(0, maxRows)
    .map((e) =>
      `<tr><td class="num">+${esc(formatMs(e.startMs - t0))}</td><td class="num${e.breach ? ' warn' : ''}">${esc(formatMs(e.gapMs))}</td>` +
      `<td class="num">${esc(formatMs(e.intervalMs))}</td><td>${esc(e.waitReason ?? '–')}</td><td>${esc(e.outcome)}${e.status !== null ? ` ${esc(e.status)}` : ''}</td>` +
      `<td class="url mono">${esc(e.url)}</td></tr>`)
    .join('');
  return `<details><summary>Requests as a table</summary><div class="scroll"><table><thead><tr><th class="num">start</th><th class="num">after previous response</th>` +
    `<th class="num">interval</th><th>wait from</th><th>outcome</th><th>URL</th></tr></thead><tbody>${body}</tbody></table></div></details>`;
}

function diffHtml(oldBody: string | null, newBody: string | null): string {
  const lines = diffPolicies(oldBody, newBody);
  if (lines.length === 0) return '<p class="empty">Both versions are empty.</p>';
  const sign = { same: ' ', added: '+', removed: '-' } as const;
  return `<div class="diff">${lines
    .map((l) => `<div class="${l.kind}"><span class="ln">${l.oldLine ?? ''}</span><span class="ln">${l.newLine ?? ''}</span>${sign[l.kind]} ${esc(l.text)}</div>`)
    .join('')}</div>`;
}

/** Build the report as one HTML document (a string). */
export function buildReportHtml(record: CrawlRecord, options: ReportOptions = {}): string {
  const maxRows = options.maxTimelineRows ?? 400;
  const maxBlocked = options.maxBlockedRows ?? 1000;
  const t = totals(record);
  const maxTimelineHosts = options.maxTimelineHosts ?? 100;
  const maxHostRows = options.maxHostRows ?? 2000;
  const hosts = hostStats(record);
  // A crawl of 100k hosts must still give a file a browser opens: the busiest hosts first, the rest counted.
  const busiest = hosts.slice().sort((a, b) => b.attempts - a.attempts || a.host.localeCompare(b.host));
  const tableHosts = hosts.length > maxHostRows ? busiest.slice(0, maxHostRows) : hosts;
  const timelineHosts = hosts.length > maxTimelineHosts ? busiest.slice(0, maxTimelineHosts) : hosts;
  const changes = policyChanges(record);
  const bodies = new Map(record.policies.map((p) => [p.sha256, p.body]));
  const title = options.title ?? 'crawl';

  const hostRows = tableHosts
    .map((h) => {
      // Each value stays on one line ("crawl-delay ×3", "2.04 s"); lists break between values.
      const waits = Object.entries(h.waitReasons).map(([k, v]) => `<span class="nw">${esc(k)} ×${v}</span>`).join(', ') || '–';
      const interval = h.minIntervalMs === h.maxIntervalMs
        ? esc(formatMs(h.minIntervalMs))
        : `<span class="nw">${esc(formatMs(h.minIntervalMs))} –</span> <span class="nw">${esc(formatMs(h.maxIntervalMs))}</span>`;
      return `<tr><td class="host"><a href="#host-${esc(encodeURIComponent(h.host))}">${wrappableHost(h.host)}</a></td><td class="num">${h.sent}</td>` +
        OUTCOMES.map((o) => `<td class="num">${h[o]}</td>`).join('') +
        `<td class="num">${esc(formatBytes(h.bytes))}</td><td class="num interval">${interval}</td><td>${waits}</td>` +
        `<td class="num ${h.intervalBreaches ? 'warn' : 'ok'}">${h.intervalBreaches}</td><td class="num">${h.policyVersions}</td></tr>`;
    })
    .join('');

  const timelines = timelineHosts
    .map((h) => {
      const entries = timeline(record, h.host);
      const at = policyChanges(record, h.host).map((c) => Date.parse(c.at));
      return `<section id="host-${esc(encodeURIComponent(h.host))}"><h3>${esc(h.host)}</h3>${timelineSvg(h.host, entries, at, maxRows, robotsFetches(record, h.host))}${timelineTable(entries, maxRows)}</section>`;
    })
    .join('');

  const changeBlocks = changes.length
    ? changes
        .map((c) => {
          const short = (s: string | null) => (s ? s.slice(0, 12) : 'none');
          return `<section><h3>${esc(originHost(c.origin))} <span class="sub">at ${esc(c.at)}</span></h3>` +
            `<p class="sub">run <code>${esc(c.runId)}</code> · <code>${esc(short(c.oldSha256))}</code> → <code>${esc(short(c.newSha256))}</code>. ` +
            `Requests started after ${esc(c.at)} are governed by the new version.</p>` +
            `<details open><summary>What changed</summary>${diffHtml(c.oldSha256 ? bodies.get(c.oldSha256) ?? null : null, c.newSha256 ? bodies.get(c.newSha256) ?? null : null)}</details></section>`;
        })
        .join('')
    : '<p class="empty">No robots.txt changed during the crawl.</p>';

  const blockedAll = blocked(record);
  const blockedRows = blockedAll
    .slice(0, maxBlocked)
    .map((b) => `<tr><td class="url mono">${esc(b.url)}</td><td class="nw">${esc(reasonWithCause(b.reason, b.policyStatus))}</td><td class="num">${esc(b.ruleLine ?? '–')}</td>` +
      `<td class="url mono">${esc(b.rulePattern ?? '–')}</td><td class="url mono">${esc(b.robotsUrl ?? '–')}</td></tr>`)
    .join('');

  const notUrls = notUrlLines(record);
  const maxNotUrls = options.maxNotUrlRows ?? 1000;
  const notUrlRows = notUrls
    .slice(0, maxNotUrls)
    .map((l) => `<tr><td class="url mono">${esc(l.text)}</td><td class="nw">${esc(l.reason)}</td><td>${esc(l.error ?? '–')}</td></tr>`)
    .join('');
  // Lines of the URL list that were not URLs name no host: they get their own section, not a
  // nameless row in the hosts table and a timeline with an empty heading.
  const notUrlSection = notUrls.length
    ? `<section id="not-urls"><h2>Lines that were not URLs: ${notUrls.length}</h2>` +
      `<p class="sub">Lines of the URL list that the crawl could not use; nothing was sent for them.</p>` +
      `<div class="scroll"><table><thead><tr><th>line</th><th>reason</th><th>why</th></tr></thead><tbody>${notUrlRows}</tbody></table></div>` +
      (notUrls.length > maxNotUrls ? `<p class="empty">${notUrls.length - maxNotUrls} more are not listed.</p>` : '') +
      '</section>'
    : '';

  const generated = formatTime(options.generatedAtMs ?? Date.now());
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>robots-gate report: ${esc(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>Crawl report</h1>
<p class="sub">${esc(title)} · ${esc(formatTime(t.startMs))} to ${esc(formatTime(t.endMs))} (${esc(formatMs(t.endMs - t.startMs))}) · generated ${esc(generated)} by robots-gate</p>
<h2>Totals</h2>
<div class="cards" id="totals">${card('requests sent (robots.txt aside)', t.sent)}${card('URLs decided', t.urls)}${card('fetched', t.fetched)}${card('blocked by robots.txt (not sent)', t.blocked)}${card(t.notUrls ? `skipped (${t.notUrls} of them input lines that are not URLs)` : 'skipped', t.skipped + t.notUrls)}${card('errors', t.error)}${card('overridden', t.overridden)}${card('hosts', t.hosts)}${card('runs', t.runs)}${card('saved', formatBytes(t.bytes))}${card('robots.txt versions', t.policies)}${card('robots.txt changes', t.policyChanges)}</div>
<h2>Hosts</h2>
<div class="scroll"><table id="hosts"><thead><tr><th>host</th><th class="num">requests</th>${OUTCOMES.map((o) => `<th class="num">${o}</th>`).join('')}<th class="num">saved</th><th class="num">interval</th><th>waits from</th><th class="num">sent before interval</th><th class="num">robots.txt versions</th></tr></thead><tbody>${hostRows || '<tr><td colspan="13" class="empty">No requests.</td></tr>'}</tbody></table></div>
${hosts.length > tableHosts.length ? `<p class="empty">The ${tableHosts.length} hosts with the most requests are listed; ${hosts.length - tableHosts.length} more are not.</p>` : ''}
${notUrlSection}
<h2>Timelines</h2>
<p class="sub">One row per request, in start order. The bar is the request (outlined in red if it came too soon). The shaded band before it is the interval the host was given, counted from the end of the previous response (a robots.txt fetch counts) and coloured by where it came from; a polite request starts at or after the band's end. A dashed line marks a robots.txt change.</p>
${legend()}
${timelines}
${hosts.length > timelineHosts.length ? `<p class="empty">Timelines are drawn for the ${timelineHosts.length} hosts with the most requests; ${hosts.length - timelineHosts.length} more are not drawn.</p>` : ''}
<h2>Policy changes</h2>
<div id="changes">${changeBlocks}</div>
<h2>Blocked URLs</h2>
${blockedAll.length ? `<div class="scroll"><table id="blocked"><thead><tr><th>URL</th><th>reason</th><th class="num">line</th><th>rule</th><th>robots.txt</th></tr></thead><tbody>${blockedRows}</tbody></table></div>` : '<p class="empty">Nothing was blocked.</p>'}
${blockedAll.length > maxBlocked ? `<p class="empty">${blockedAll.length - maxBlocked} more blocked URLs are not listed.</p>` : ''}
${sitemapsSection(record.attempts)}
${usageSection(record.attempts)}
</main></body></html>
`;
}
