// `crawl --sitemaps`: before the crawl, each origin's robots.txt sitemaps are read (through the
// crawl's gate, into the crawl's audit, on the crawl's per-host slots), and what they list becomes
// the crawl's URL list. Each URL's claims ride on its attempt rows; nothing is skipped for them.
import fs from 'node:fs';
import path from 'node:path';
import { auditFiles, openAudit } from '../audit/reader.js';
import type { AttemptRow, AuditSink, PolicyChangeRow, PolicyRow, RunEndRow, RunRow, SitemapClaims } from '../audit/types.js';
import { discoverSitemaps, type DiscoveryGate, type DiscoveryStats } from '../discovery/index.js';
import type { SitemapEntry } from '../discovery/sitemap-parser.js';
import { sleepUntil } from '../politeness/pacer.js';
import type { SeedHold } from '../politeness/types.js';
import type { RateLimiter } from '../stores/types.js';
import { count as plural } from './plural.js';
import { lastmodReliability } from '../discovery/freshness.js';
import { reliabilityText } from './audit-sitemaps.js';
import { describe, htmlPagesText, isHtmlPage, readInFull, summary } from './sitemaps.js';

export interface SitemapPhaseOptions {
  readonly gate: DiscoveryGate;
  readonly audit: AuditSink;
  readonly runId: string;
  readonly origins: readonly string[];
  /** The crawl's per-host slots (a RedisRateLimiter in a fleet); default the gate's. */
  readonly limiter?: RateLimiter;
  readonly minIntervalMs: number;
  readonly maxUrlsPerHost: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Between progress lines on stderr, in ms. */
  readonly progressMs: number;
  readonly say: (line: string) => void;
  /** Sitemaps settled by an earlier run (`--resume`) and what they listed: replayed, not fetched. */
  readonly replay?: ReadonlyMap<string, readonly SitemapEntry[]>;
  /** Where each sitemap's kept entries are appended (JSON lines), for a later `--resume`. */
  readonly journal?: string;
  /** A fleet's claim: true when this worker is the one to read the sitemap. */
  readonly claim?: (sitemapUrl: string) => Promise<boolean>;
  /** Filled with each discovered URL's claims (for ClaimsAuditSink). */
  readonly claims: Map<string, SitemapClaims>;
  /** Per host (`URL.host`): what an earlier run left it under (`--resume`: a 429/503 back-off, the
   *  Crawl-delay kept), no request to it before `until` (ms since epoch). The limiter is seeded
   *  with the same times and stays the floor; this only orders the origins (see discoverForCrawl). */
  readonly holds?: ReadonlyMap<string, SeedHold>;
}

export interface SitemapPhaseResult {
  readonly urls: { url: string; host: string }[];
  /** When each host's last sitemap response ended (ms since epoch) and the interval it kept:
   *  the crawl's first request to the host keeps the interval after it. */
  readonly lastSent: Map<string, { endedAt: number; intervalMs: number | null }>;
  readonly stats: DiscoveryStats[];
  /** Some sitemap failed, was blocked, was an HTML page or was cut at a limit. */
  readonly problems: boolean;
  /** Audit rows written for sitemaps (kind `sitemap`), beside the URLs' own. */
  readonly rows: number;
}

/**
 * With --sitemaps the list is read for its origins only: the note to say once when some line gives
 * more than an origin (a path other than `/`, or a query), since that page is then not fetched
 * unless a sitemap lists it; undefined when every line is an origin.
 */
export function sitemapsListNote(urls: readonly { readonly url: string }[]): string | undefined {
  const pages = urls.filter((u) => {
    const p = new URL(u.url);
    return p.pathname !== '/' || p.search !== '';
  });
  if (pages.length === 0) return undefined;
  const example = pages[0]!.url;
  return (
    `with --sitemaps the list is read as origins: the paths in it are not crawled, only the URLs their origins' sitemaps list ` +
    `(${plural(pages.length, 'line has', 'lines have')} a path, such as ${printableUrl(example)}; without --sitemaps the list's own URLs are crawled)`
  );
}

/** A URL of the list for a message: at most 200 characters (the list's URLs are already
 *  WHATWG-serialised, so no control character is left in them). */
function printableUrl(url: string): string {
  return url.length > 200 ? `${url.slice(0, 200)}…` : url;
}

/** Origins read at once; each origin's sitemaps are read one after another. */
const ORIGINS_AT_ONCE = 8;

/**
 * Read the sitemaps of `o.origins`, ORIGINS_AT_ONCE origins at a time. An origin whose host an
 * earlier run left held (`o.holds`) is read after the open ones, in the order the holds end, and no
 * phase slot takes it before its host opens: taken in list order, the held origins sat in the
 * limiter's wait (an hour for a Retry-After: 3600) holding every slot while open origins waited.
 */
export async function discoverForCrawl(o: SitemapPhaseOptions): Promise<SitemapPhaseResult> {
  const urls: { url: string; host: string }[] = [];
  const claims = o.claims;
  const lastSent = new Map<string, { endedAt: number; intervalMs: number | null }>();
  const seen = new Set<string>();
  const stats: DiscoveryStats[] = [];
  let problems = false;
  // Counted as each origin's summary line counts them (read, failed, blocked), so the totals agree;
  // `html`: of those read, the HTML pages (discovery counts them read: they were fetched).
  const settled = { read: 0, failed: 0, blocked: 0, html: 0 };
  const journal = o.journal ? fs.openSync(o.journal, 'a') : undefined;
  const order = openingOrder(o.origins, o.holds, Date.now());
  // By host: two origins of one host (http and https) are one hold.
  const backedOff = [...new Map(order.filter((x) => x.hold?.reason === 'backoff').map((x) => [x.host, x])).values()];
  if (backedOff.length > 0) {
    const named = backedOff.slice(0, MAX_NAMED).map((x) => `${x.host} until ${new Date(x.hold!.until).toISOString()}`);
    if (backedOff.length > MAX_NAMED) named.push(`${backedOff.length - MAX_NAMED} more`);
    o.say(
      `sitemaps: ${plural(backedOff.length, 'host is', 'hosts are')} held by an earlier run's back-off (${named.join(', ')}): ` +
        `${backedOff.length === 1 ? 'its origin is' : 'their origins are'} read after the others, each once its host opens`,
    );
  }
  // The hosts a worker waits on to open, for the progress line; the held ones read, for the summary.
  const waiting = new Map<string, SeedHold>();
  const readHeld = new Set<string>();
  const waitingText = () => {
    const b = [...waiting.values()].filter((h) => h.reason === 'backoff');
    if (b.length === 0) return '';
    const first = Math.min(...b.map((h) => h.until));
    return `; waiting for ${plural(b.length, 'host')} held by an earlier run's back-off, the first until ${new Date(first).toISOString()}`;
  };
  const timer = setInterval(() => o.say(`sitemaps: ${plural(settled.read, 'sitemap')} read, ${plural(urls.length, 'URL')} found${waitingText()}`), o.progressMs);
  timer.unref();
  // A sitemap's row is committed as it is written: discovery sends the host's next request
  // without a flush of its own, and the crash promise holds for these rows too.
  let rows = 0;
  const sitemapAudit: AuditSink = {
    recordAttempt: (row) => {
      o.audit.recordAttempt(row);
      rows++;
      o.audit.flush?.();
    },
    recordPolicy: (row) => o.audit.recordPolicy(row),
    recordPolicyChange: (row) => o.audit.recordPolicyChange(row),
    // The crawl's sink: closed by the crawl.
    close: () => {},
  };
  try {
    let next = 0;
    const worker = async () => {
      while (next < order.length && !o.signal.aborted) {
        const { origin, host, hold } = order[next++]!;
        // Taken only once every origin that opens sooner is taken: this worker has nothing else to
        // read. It waits here, not in the limiter, and the origin is read when its host opens rather
        // than left unsettled for a later --resume: the crawl is handed the phase's URLs when it
        // starts, so an origin left unread here would go uncrawled this run, and a run that ended
        // with a host left out would look complete. The cost: the crawl starts once the last held
        // host opens. The limiter, seeded with the same holds, still keeps every request to `until`.
        if (hold !== undefined && hold.until > Date.now()) {
          waiting.set(host, hold);
          try {
            await sleepUntil(hold.until, o.signal);
          } catch {
            // Aborted (Ctrl-C): said below.
          } finally {
            waiting.delete(host);
          }
          if (o.signal.aborted) return;
        }
        if (hold?.reason === 'backoff') readHeld.add(host);
        let html = 0;
        const d = discoverSitemaps(o.gate, origin, {
          ...(o.limiter ? { limiter: o.limiter } : {}),
          minIntervalMs: o.minIntervalMs,
          maxUrlsPerHost: o.maxUrlsPerHost,
          timeoutMs: o.timeoutMs,
          audit: sitemapAudit,
          runId: o.runId,
          signal: o.signal,
          ...(o.replay ? { replay: o.replay } : {}),
          ...(o.claim ? { claim: o.claim } : {}),
          ...(journal !== undefined ? { onEntries: (sitemap: string, entries: readonly SitemapEntry[]) => journalWrite(journal, sitemap, entries) } : {}),
          onSitemap: (r) => {
            if (r.outcome === 'read') settled.read++;
            else if (r.outcome === 'blocked') settled.blocked++;
            else settled.failed++;
            if (!readInFull(r)) problems = true;
            // Named as the sitemaps command names it: the phase prints no other per-sitemap line,
            // and without this one a sitemap URL that answers an HTML page looked read and empty.
            if (isHtmlPage(r)) {
              html++;
              settled.html++;
              o.say(describe(r));
            }
            if (r.outcome === 'read' || r.status !== null) {
              const host = new URL(r.url).host;
              const prev = lastSent.get(host);
              if (!prev || r.endedAt > prev.endedAt) lastSent.set(host, { endedAt: r.endedAt, intervalMs: r.intervalMs });
            }
          },
        });
        stats.push(d.stats);
        try {
          for await (const u of d) {
            if (seen.has(u.url)) continue;
            seen.add(u.url);
            urls.push({ url: u.url, host: u.host });
            claims.set(u.url, {
              source: u.sitemap,
              advertisedBy: u.robotsUrl,
              ...(u.lastmod !== undefined ? { lastmod: u.lastmod } : {}),
              ...(u.changefreq !== undefined ? { changefreq: u.changefreq } : {}),
              ...(u.priority !== undefined ? { priority: u.priority } : {}),
              sampled: u.sampled,
            });
          }
        } catch (err) {
          if (o.signal.aborted) return;
          throw err;
        }
        o.say(summary(d.origin, d.stats, { html }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(ORIGINS_AT_ONCE, o.origins.length) }, worker));
  } finally {
    clearInterval(timer);
    if (journal !== undefined) fs.closeSync(journal);
  }
  const afterBackoff = readHeld.size > 0 ? ` (${plural(readHeld.size, 'host')} read once an earlier run's back-off ended)` : '';
  o.say(
    `sitemaps: ${plural(settled.read, 'sitemap')} read${htmlPagesText(settled.html)}, ${settled.failed} failed, ${settled.blocked} blocked; ` +
      `${plural(urls.length, 'URL')} found on ${plural(new Set(urls.map((u) => u.host)).size, 'host')}${afterBackoff}`,
  );
  return { urls, lastSent, stats, problems, rows };
}

/** Held hosts named at most in the phase's first line. */
const MAX_NAMED = 10;

/** `origins` in the order their hosts open: the open ones first, in list order, then the held ones
 *  by the end of their hold (list order among equal ends), each with its hold if it is still on at `now`. */
export function openingOrder(
  origins: readonly string[],
  holds: ReadonlyMap<string, SeedHold> | undefined,
  now: number,
): { origin: string; host: string; hold: SeedHold | undefined }[] {
  const out = origins.map((origin, i) => {
    const host = new URL(origin).host;
    const h = holds?.get(host);
    return { origin, host, hold: h !== undefined && h.until > now ? h : undefined, i };
  });
  out.sort((a, b) => (a.hold?.until ?? 0) - (b.hold?.until ?? 0) || a.i - b.i);
  return out.map(({ origin, host, hold }) => ({ origin, host, hold }));
}

/**
 * The phase as the crawl command runs it: with `resume`, the sitemaps an earlier run in `outDir`
 * settled are not fetched again; what they listed comes back from the journal it kept there.
 */
export async function sitemapPhase(
  o: Omit<SitemapPhaseOptions, 'replay' | 'journal'> & { readonly outDir: string; readonly resume: boolean },
): Promise<SitemapPhaseResult> {
  const journal = path.join(o.outDir, JOURNAL);
  let replay: Map<string, SitemapEntry[]> | undefined;
  if (o.resume && auditFiles(o.outDir).length > 0) {
    const reader = openAudit(o.outDir);
    try {
      const settled = new Set(reader.attempts({ kind: 'sitemap' }).filter((r) => r.final).map((r) => r.url));
      replay = readJournal(journal, settled);
    } finally {
      reader.close();
    }
    if (replay.size > 0) o.say(`resuming: ${plural(replay.size, 'sitemap')} settled before, not fetched again`);
  }
  return discoverForCrawl({ ...o, journal, ...(replay ? { replay } : {}) });
}

/** In --out: each sitemap's raw entries, for --resume (JSON lines: sitemap, entries). */
export const JOURNAL = 'sitemap-entries.jsonl';

function journalWrite(fd: number, sitemap: string, entries: readonly SitemapEntry[]): void {
  if (entries.length === 0) return;
  fs.writeSync(fd, JSON.stringify({ sitemap, entries }) + '\n');
}

/** Read a journal back: each sitemap's entries, for the sitemaps in `settled`. Read a chunk at a
 *  time: read whole, a journal past V8's longest string (about 512 MiB; a few hostile sitemaps
 *  make one) failed, and every sitemap it held was skipped with nothing replayed. A journal that
 *  cannot be read replays nothing: those sitemaps are fetched again rather than lost. */
export function readJournal(file: string, settled: ReadonlySet<string>): Map<string, SitemapEntry[]> {
  const out = new Map<string, SitemapEntry[]>();
  for (const s of settled) out.set(s, []);
  const take = (line: string) => {
    if (line === '') return;
    let rec: { sitemap: string; entries: SitemapEntry[] };
    try {
      rec = JSON.parse(line);
    } catch {
      return; // a line cut by a kill: that sitemap had no final row either
    }
    const list = out.get(rec.sitemap);
    if (list) for (const e of rec.entries) list.push(e);
  };
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? out : new Map();
  }
  try {
    const buf = Buffer.allocUnsafe(JOURNAL_CHUNK);
    const decoder = new TextDecoder();
    let carry = '';
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      const text = carry + decoder.decode(buf.subarray(0, n), { stream: n > 0 });
      const lines = text.split('\n');
      carry = n > 0 ? lines.pop()! : '';
      for (const line of lines) take(line);
      if (n === 0) break;
    }
    take(carry);
  } catch {
    return new Map();
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

/** Bytes of the journal read at a time. */
const JOURNAL_CHUNK = 1 << 20;

/**
 * The crawl summary's freshness part for run `runId`: text lines, or one JSON line
 * (`type: lastmod-reliability`). Read back from the audit in `outDir` (this run and earlier ones).
 */
export function freshnessOutput(outDir: string, runId: string, json: boolean): string {
  let hosts;
  try {
    const reader = openAudit(outDir);
    try {
      hosts = lastmodReliability(reader.attempts(), runId);
    } finally {
      reader.close();
    }
  } catch {
    return ''; // the summary above stands; `audit --sitemaps` can say more later
  }
  return json ? JSON.stringify({ type: 'lastmod-reliability', runId, hosts }) + '\n' : reliabilityText(hosts);
}

/** Puts each URL's sitemap claims on its attempt rows (page and redirect rows alike). */
export class ClaimsAuditSink implements AuditSink {
  constructor(
    private readonly inner: AuditSink,
    private readonly claims: ReadonlyMap<string, SitemapClaims>,
  ) {}
  recordAttempt(row: AttemptRow): void {
    const c = row.kind === 'sitemap' || row.sitemap ? undefined : this.claims.get(row.url);
    this.inner.recordAttempt(c ? { ...row, sitemap: c } : row);
  }
  recordPolicy(row: PolicyRow): void {
    this.inner.recordPolicy(row);
  }
  recordPolicyChange(row: PolicyChangeRow): void {
    this.inner.recordPolicyChange(row);
  }
  recordRun(row: RunRow): void {
    this.inner.recordRun?.(row);
  }
  recordRunEnd(row: RunEndRow): void {
    this.inner.recordRunEnd?.(row);
  }
  flush(host?: string): void {
    this.inner.flush?.(host);
  }
  close(): void {
    this.inner.close();
  }
}
