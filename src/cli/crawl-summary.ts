// The table printed when a crawl ends: counts per outcome, the hosts most blocked, the slowest
// hosts and why they were slow.
import type { CrawlStats, HostStats } from '../crawl/crawl-job.js';
import { spanStart } from '../crawl/attempt-log.js';
import { count } from './plural.js';
import { table } from './text-table.js';

function why(h: HostStats, urls: number): string {
  if (h.skippedBecause) return `skipped: ${h.skippedBecause}`;
  if (h.maxIntervalReason === 'crawl-delay') return `Crawl-delay ${h.crawlDelaySeconds} s`;
  if (h.maxIntervalReason === 'override') return 'under override';
  if (h.maxIntervalReason === 'backoff') return 'backed off (429/503)';
  if (h.maxIntervalReason === 'floor') return 'the floor (--min-interval, 2 s unless set)';
  // No interval between requests: what time there is, is the server's answering.
  if (urls === 1) return "one request: the server's response time";
  return '-';
}

/** The host's time, from its robots.txt response (when this run fetched it first: the first
 *  request waited its interval from there) or its first request's start, to its last response's
 *  end: under a second in ms, so a one-URL host's few ms do not read as "0.0 s"; '-' for none. */
function hostTime(ms: number): string {
  if (ms <= 0) return '-';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The host's time in ms (see hostTime), or null before any request of it. */
function elapsed(h: HostStats): number | null {
  const from = spanStart(h);
  return from !== undefined && h.lastAt !== undefined ? h.lastAt - from : null;
}

/** URLs of the run not settled (still queued, in flight, or given up at an interrupt). */
export function unsettled(stats: CrawlStats): number {
  let left = 0;
  for (const h of stats.hosts.values()) left += Math.max(0, h.remaining);
  return left;
}

/** Failed URLs named in the text summary; the rest are counted. */
const FAILED_SHOWN = 5;

/** Rows a --browser crawl wrote for its pages' subresources, by outcome (the crawl's own
 *  statistics count only its URLs). */
export type SubresourceCounts = Record<string, number>;

const sum = (o: Readonly<Record<string, number>>) => Object.values(o).reduce((a, b) => a + b, 0);

/** Plain-text summary for a person. `status` 'interrupted' says so, with what is left. */
export function formatSummary(
  stats: CrawlStats,
  runId: string,
  elapsedMs: number,
  invalid: number,
  status = 'completed',
  subresources: SubresourceCounts = {},
  sitemapRows = 0,
): string {
  const out: string[] = [];
  const o = stats.outcomes;
  // Input lines that were no URL are rows (skipped) but no URL of the run: counted apart.
  const total = sum(o) - invalid;
  const detail = [
    ...(stats.redirectTargets ? [`${total - stats.redirectTargets} from the list, ${count(stats.redirectTargets, 'redirect target')}`] : []),
    // Not a URL, another scheme, or a user:password part (url-list.ts): each named on stderr.
    ...(invalid ? [`${count(invalid, 'input line')} skipped as not ${invalid === 1 ? 'an http(s) URL' : 'http(s) URLs'} without credentials`] : []),
  ];
  const aside = detail.length ? ` (${detail.join('; ')})` : '';
  const figures = `${count(stats.attempts + sum(subresources) + sitemapRows, 'audit row')}, ${count(stats.policyChanges, 'policy change')}`;
  if (status === 'interrupted') {
    const left = unsettled(stats);
    out.push(
      `crawl ${runId}: INTERRUPTED after ${(elapsedMs / 1000).toFixed(1)} s: ${count(total, 'URL')} settled${aside}, ` +
        `${count(left, 'URL')} left (--resume continues), ${figures}`,
    );
  } else out.push(`crawl ${runId}: ${count(total, 'URL')} settled in ${(elapsedMs / 1000).toFixed(1)} s${aside}, ${figures}`);
  out.push('');
  out.push(
    table([
      ['outcome', 'URLs'],
      ['fetched', o.fetched],
      ['overridden', o.overridden],
      ['blocked', o.blocked],
      // As the HTML report says it: the input lines are in the row, and say so where they are counted.
      [!invalid ? 'skipped' : invalid === 1 ? 'skipped (one of them an input line that is not a URL)' : `skipped (${invalid} of them input lines that are not URLs)`, o.skipped],
      ['error', o.error],
    ]),
  );
  if (o.error) {
    // A URL that failed is named here, not only in the audit: it is what the user acts on.
    const shown = stats.failed.slice(0, FAILED_SHOWN);
    out.push('', `${o.error === 1 ? 'failed' : `failed (${o.error})`}`);
    if (shown.length) out.push(table(shown.map((f) => [f.url, f.reason])).replace(/^/gm, '  '));
    if (o.error > shown.length) out.push(`  … and ${o.error - shown.length} more (every one is in the audit: robots-gate audit DIR --host HOST)`);
  }
  if (sum(subresources)) {
    const order = ['fetched', 'overridden', 'blocked', 'error', 'skipped'];
    const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
    const parts = Object.entries(subresources)
      .filter(([, n]) => n > 0)
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([k, n]) => `${n} ${k}`);
    out.push('', `rendered pages' subresources: ${count(sum(subresources), 'request')} decided (${parts.join(', ')}), one audit row each`);
  }
  if (stats.truncated) out.push('', `${count(stats.truncated, 'document was', 'documents were')} cut at --max-page-bytes (rows say truncated; the rest was not read)`);
  const hosts = [...stats.hosts.values()];
  const blocked = hosts.filter((h) => (h.outcomes.blocked ?? 0) > 0).sort((a, b) => (b.outcomes.blocked ?? 0) - (a.outcomes.blocked ?? 0));
  if (blocked.length) {
    out.push('', 'hosts most blocked');
    out.push(
      table([
        ['host', 'blocked', 'of'],
        ...blocked.slice(0, 5).map((h) => [h.host, h.outcomes.blocked ?? 0, Object.values(h.outcomes).reduce((a, b) => a + (b ?? 0), 0)]),
      ]),
    );
  }
  const slow = hosts
    .map((h) => ({ h, ms: elapsed(h) ?? 0 }))
    .filter((x) => x.ms > 0 || x.h.skippedBecause)
    .sort((a, b) => b.ms - a.ms);
  if (slow.length) {
    out.push('', 'slowest hosts');
    out.push(
      table([
        ['host', 'URLs', 'time', 'interval', 'why'],
        ...slow.slice(0, 5).map(({ h, ms }) => {
          const urls = Object.values(h.outcomes).reduce((a, b) => a + (b ?? 0), 0);
          return [h.host, urls, hostTime(ms), h.maxIntervalMs ? `${h.maxIntervalMs} ms` : '-', why(h, urls)];
        }),
      ]),
    );
  }
  return out.join('\n') + '\n';
}

/** Hosts whose robots.txt was unreachable, as a warning line for stderr (null when none was):
 *  a crawl where every robots.txt failed (a forgotten --resolve, no network) otherwise looks
 *  like a site that disallows everything. */
export function unreachableWarning(stats: CrawlStats): string | null {
  const hosts = [...stats.hosts.values()].filter((h) => h.host !== '');
  const down = hosts.filter((h) => h.robotsUnreachable).map((h) => h.host);
  if (down.length === 0) return null;
  const named = down.slice(0, 3).join(', ') + (down.length > 3 ? `, … (${down.length - 3} more)` : '');
  return (
    `robots.txt unreachable for ${down.length} of ${hosts.length} ${hosts.length === 1 ? 'host' : 'hosts'} (${named}): ` +
    'everything there was disallowed (RFC 9309 §2.3.1.4); check the host names, the network, --resolve, ' +
    'or --robots-timeout for a slow site (`robots-gate audit DIR --blocked` gives each cause); ' +
    '--resume tries those URLs again'
  );
}

/** The summary as one JSON object (`--json`). */
export function summaryObject(
  stats: CrawlStats,
  runId: string,
  elapsedMs: number,
  invalid: number,
  status: string,
  subresources: SubresourceCounts = {},
  sitemapRows = 0,
): object {
  return {
    type: 'summary',
    runId,
    status,
    elapsedMs,
    unsettled: unsettled(stats),
    outcomes: stats.outcomes,
    attempts: stats.attempts + sum(subresources) + sitemapRows,
    subresources,
    invalidLines: invalid,
    redirectTargets: stats.redirectTargets,
    /** The first failed URLs (the audit has every one; `outcomes.error` counts them). */
    failed: stats.failed,
    policyChanges: stats.policyChanges,
    bytes: stats.bytes,
    truncated: stats.truncated,
    hosts: [...stats.hosts.values()].map((h) => ({
      host: h.host,
      outcomes: h.outcomes,
      crawlDelaySeconds: h.crawlDelaySeconds ?? null,
      // The longest interval kept before one of the host's requests in this run (ms), the first
      // request's wait after a robots.txt request of this run included; null with none kept.
      // elapsedMs runs from that robots.txt response (or the first request) to the last response.
      maxIntervalMs: h.maxIntervalMs || null,
      maxIntervalReason: h.maxIntervalReason,
      elapsedMs: elapsed(h),
      skipped: h.skippedBecause ?? null,
      robotsUnreachable: h.robotsUnreachable,
    })),
  };
}
