// What the report and the audit browser know about a crawl, and the summaries both show.
// Pure functions over the audit rows (src/audit/types.ts): no I/O, no Node built-ins, so the
// same code serves `robots-gate report` (Node) and the audit browser's API.
import type { AttemptOutcome, AttemptRow, PolicyChangeRow, PolicyRow } from '../audit/types.js';

/** Every row of one crawl's audit (one DIR, possibly several runs and several audit files). */
export interface CrawlRecord {
  readonly attempts: readonly AttemptRow[];
  /** Every distinct robots.txt body, by sha256 (two origins serving the same bytes share a row;
   *  which hosts a body governed comes from the attempts' stamps and the policy changes). */
  readonly policies: readonly PolicyRow[];
  readonly changes: readonly PolicyChangeRow[];
  /** What the audit reader could not read (see AuditReader.notes); absent or empty: nothing. */
  readonly notes?: readonly string[];
}

/** One run, derived from its attempts. Times are epoch ms. */
export interface RunSummary {
  readonly runId: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly attempts: number;
  readonly hosts: number;
}

export type OutcomeCounts = Record<AttemptOutcome, number>;

/** A crawl's totals. The outcome counts are the URLs', each by its final row (what it settled
 *  as: a 503 retried and then fetched counts as fetched); `attempts` and `sent` count rows. All
 *  leave out input lines that were not URLs (`notUrls`). */
export interface Totals extends OutcomeCounts {
  readonly runs: number;
  readonly hosts: number;
  /** Rows, every attempt and redirect hop (not the lines that were not URLs). */
  readonly attempts: number;
  /** Requests sent: rows fetched, in error or overridden (a blocked or skipped URL sent nothing). */
  readonly sent: number;
  /** URLs settled: rows final for their URL. */
  readonly urls: number;
  /** Lines of the URL list that were not usable URLs (see {@link notUrlLines}). */
  readonly notUrls: number;
  /** Bytes of saved content. */
  readonly bytes: number;
  /** Epoch ms of the first request start and the last request end; NaN when there are none. */
  readonly startMs: number;
  readonly endMs: number;
  readonly policies: number;
  readonly policyChanges: number;
}

/** A host's figures: outcome counts by URL (each URL's final row, as in the totals), `attempts`
 *  and `sent` by row. */
export interface HostStats extends OutcomeCounts {
  readonly host: string;
  /** Rows, every attempt and redirect hop. */
  readonly attempts: number;
  /** Requests sent: rows fetched, in error or overridden. */
  readonly sent: number;
  readonly bytes: number;
  /** Smallest and largest interval applied to the host (ms); null when none was recorded. */
  readonly minIntervalMs: number | null;
  readonly maxIntervalMs: number | null;
  /** How many requests waited for each reason (`crawl-delay`, `floor`, `override`, `backoff`). */
  readonly waitReasons: Readonly<Record<string, number>>;
  /** Requests that started sooner after the previous response ended than their recorded interval. */
  readonly intervalBreaches: number;
  readonly policyVersions: number;
}

/** One request on a host's timeline. Times are epoch ms. */
export interface TimelineEntry {
  readonly url: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly outcome: AttemptOutcome;
  readonly status: number | null;
  readonly waitReason: string | null;
  readonly intervalMs: number | null;
  /** When the previous request sent to this host ended (epoch ms); null for the first. The host's
   *  interval runs from there (src/politeness: end of a response to the start of the next request). */
  readonly prevEndMs: number | null;
  /** ms from the previous response's end to this start; null for the first or for requests never sent. */
  readonly gapMs: number | null;
  /** Sent before its interval had passed (beyond a few ms of timer slack). */
  readonly breach: boolean;
  readonly kind: AttemptRow['kind'];
}

/** A line of the URL list that was not a usable URL: recorded as `skipped` with no host. */
export interface NotUrlLine {
  /** The line as the crawl recorded it (credentials already masked). */
  readonly text: string;
  /** `invalid-url`, `unsupported-scheme`, `credentials`. */
  readonly reason: string;
  readonly error: string | null;
  readonly at: string;
  readonly runId: string;
}

/** A blocked URL with the rule that decided it. */
export interface BlockedEntry {
  readonly url: string;
  readonly at: string;
  readonly reason: string;
  readonly ruleLine: number | null;
  readonly rulePattern: string | null;
  readonly robotsUrl: string | null;
  readonly policySha256: string | null;
  /** The robots.txt answer the decision stood on: an HTTP status, or a network error code. */
  readonly policyStatus: string | null;
}

/** Requests sent sooner than this before the interval ended count as breaches (timer slack). */
const BREACH_SLACK_MS = 5;

/** Every outcome, in the order tables show them. */
export const OUTCOMES: readonly AttemptOutcome[] = ['fetched', 'blocked', 'skipped', 'error', 'overridden'];

function zeroCounts(): OutcomeCounts {
  return { fetched: 0, blocked: 0, skipped: 0, error: 0, overridden: 0 };
}

const ms = (iso: string): number => Date.parse(iso);

/** The crawl records an input line that is not a URL with an empty host (src/crawl
 *  recordInvalid): it names no host, so it belongs in no host's table or timeline. */
export const isNotUrl = (a: AttemptRow): boolean => a.host === '';

/** The host (`name[:port]`) an origin such as `https://a.example:8443` names. */
export function originHost(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

export function runs(record: CrawlRecord): RunSummary[] {
  const byRun = new Map<string, { startMs: number; endMs: number; attempts: number; hosts: Set<string> }>();
  for (const a of record.attempts) {
    let r = byRun.get(a.runId);
    if (!r) byRun.set(a.runId, (r = { startMs: Infinity, endMs: -Infinity, attempts: 0, hosts: new Set() }));
    r.startMs = Math.min(r.startMs, ms(a.startedAt));
    r.endMs = Math.max(r.endMs, ms(a.endedAt));
    if (isNotUrl(a)) continue;
    r.attempts++;
    r.hosts.add(a.host);
  }
  return [...byRun]
    .map(([runId, r]) => ({ runId, startMs: r.startMs, endMs: r.endMs, attempts: r.attempts, hosts: r.hosts.size }))
    .sort((a, b) => a.startMs - b.startMs);
}

/** The record narrowed to one run: its attempts, its policy changes, and the robots.txt bodies
 *  those name (the audit keeps every run's bodies in one table: counting them all said "3 versions"
 *  for a run that saw 2). */
export function forRun(record: CrawlRecord, runId: string | undefined): CrawlRecord {
  if (!runId) return record;
  const attempts = record.attempts.filter((a) => a.runId === runId);
  const changes = record.changes.filter((c) => c.runId === runId);
  const used = new Set<string>();
  for (const a of attempts) if (a.policySha256) used.add(a.policySha256);
  for (const c of changes) {
    if (c.oldSha256) used.add(c.oldSha256);
    if (c.newSha256) used.add(c.newSha256);
  }
  return { attempts, policies: record.policies.filter((p) => used.has(p.sha256)), changes };
}

export function totals(record: CrawlRecord): Totals {
  const counts = zeroCounts();
  let bytes = 0;
  let startMs = Infinity;
  let endMs = -Infinity;
  const hosts = new Set<string>();
  const runIds = new Set<string>();
  let notUrls = 0;
  let sent = 0;
  let urls = 0;
  for (const a of record.attempts) {
    runIds.add(a.runId);
    if (isNotUrl(a)) {
      notUrls++;
      continue;
    }
    if (SENT.has(a.outcome)) sent++;
    if (a.final) {
      urls++;
      counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
    }
    bytes += a.bytes ?? 0;
    startMs = Math.min(startMs, ms(a.startedAt));
    endMs = Math.max(endMs, ms(a.endedAt));
    hosts.add(a.host);
  }
  const requests = record.attempts.length - notUrls;
  return {
    ...counts,
    runs: runIds.size,
    hosts: hosts.size,
    attempts: requests,
    sent,
    urls,
    notUrls,
    bytes,
    startMs: requests ? startMs : NaN,
    endMs: requests ? endMs : NaN,
    policies: record.policies.length,
    policyChanges: record.changes.length,
  };
}

/** The record grouped by host, built once per record: reports cover crawls of 100k hosts. */
interface HostIndex {
  /** Attempts per host, in start order. */
  readonly attempts: Map<string, AttemptRow[]>;
  /** Policy changes per host (`URL.host` of the origin), oldest first. */
  readonly changes: Map<string, PolicyChangeRow[]>;
  readonly bodies: Map<string, PolicyRow>;
}

const indexes = new WeakMap<CrawlRecord, HostIndex>();

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function index(record: CrawlRecord): HostIndex {
  let idx = indexes.get(record);
  if (idx) return idx;
  const attempts = new Map<string, AttemptRow[]>();
  for (const a of record.attempts) if (!isNotUrl(a)) push(attempts, a.host, a);
  for (const list of attempts.values()) list.sort((a, b) => ms(a.startedAt) - ms(b.startedAt));
  const changes = new Map<string, PolicyChangeRow[]>();
  for (const c of record.changes) push(changes, originHost(c.origin), c);
  for (const list of changes.values()) list.sort((a, b) => ms(a.at) - ms(b.at));
  const bodies = new Map(record.policies.map((p) => [p.sha256, p]));
  idx = { attempts, changes, bodies };
  indexes.set(record, idx);
  return idx;
}

/** Requests that reached the host (blocked and skipped ones never left the process). */
const SENT: ReadonlySet<AttemptOutcome> = new Set(['fetched', 'error', 'overridden']);

/** A host's requests in start order. The previous response of an entry is its own run's: several
 *  runs on one axis drew a wait band from the last response of a run that ended hours before. A
 *  request sent too soon after an earlier run's last response is still a breach. A robots.txt
 *  fetch of the host (its end: `fetchedAt`) since that previous response, or since the earlier
 *  run's end for a run's first request, is a previous response too: the host's interval counts
 *  it (RFC 9309 leaves it open; the crawl's politeness does). */
export function timeline(record: CrawlRecord, host: string): TimelineEntry[] {
  const list = index(record).attempts.get(host) ?? [];
  const robots = robotsFetches(record, host);
  let ri = 0;
  let prevEndMs: number | null = null;
  let runId: string | undefined;
  return list.map((a) => {
    const startMs = ms(a.startedAt);
    const endMs = Math.max(startMs, ms(a.endedAt));
    const sent = SENT.has(a.outcome);
    const earlierRunEnd = a.runId !== runId ? prevEndMs : null;
    if (a.runId !== runId && sent) {
      runId = a.runId;
      prevEndMs = null;
    }
    // The last robots.txt fetch that ended before this request.
    let fetched: number | null = null;
    while (ri < robots.length && robots[ri]! <= startMs) fetched = robots[ri++]!;
    if (fetched === null && ri > 0) fetched = robots[ri - 1]!;
    if (sent && fetched !== null && fetched > (prevEndMs ?? earlierRunEnd ?? -Infinity)) prevEndMs = fetched;
    const gapMs = sent && prevEndMs !== null ? startMs - prevEndMs : null;
    const interval = a.intervalMs ?? null;
    const crossGap = sent && earlierRunEnd !== null ? startMs - earlierRunEnd : null;
    const breach = interval !== null && ((gapMs !== null && gapMs + BREACH_SLACK_MS < interval) || (crossGap !== null && crossGap + BREACH_SLACK_MS < interval));
    const entry: TimelineEntry = {
      url: a.url, startMs, endMs, outcome: a.outcome, status: a.status, waitReason: a.waitReason,
      intervalMs: a.intervalMs, prevEndMs: sent ? prevEndMs : null, gapMs, breach, kind: a.kind,
    };
    if (sent) prevEndMs = prevEndMs === null ? endMs : Math.max(prevEndMs, endMs);
    return entry;
  });
}

/** When the host's robots.txt was fetched (epoch ms, ascending, distinct): the stamps its requests
 *  carry and the stored copies of its own origins. The fetch is a request the site saw too. */
export function robotsFetches(record: CrawlRecord, host: string): number[] {
  const at = new Set<number>();
  for (const a of index(record).attempts.get(host) ?? []) {
    if (a.policyFetchedAt && a.robotsUrl && originHost(a.robotsUrl) === host) at.add(ms(a.policyFetchedAt));
  }
  for (const p of record.policies) if (originHost(p.origin) === host) at.add(ms(p.fetchedAt));
  return [...at].filter(Number.isFinite).sort((a, b) => a - b);
}

export function hostStats(record: CrawlRecord): HostStats[] {
  const out: HostStats[] = [];
  for (const [host, list] of index(record).attempts) {
    const counts = zeroCounts();
    let bytes = 0;
    let minIntervalMs: number | null = null;
    let maxIntervalMs: number | null = null;
    const waitReasons: Record<string, number> = {};
    let sent = 0;
    for (const a of list) {
      if (a.final) counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
      if (SENT.has(a.outcome)) sent++;
      bytes += a.bytes ?? 0;
      if (a.intervalMs !== null && a.intervalMs !== undefined) {
        minIntervalMs = minIntervalMs === null ? a.intervalMs : Math.min(minIntervalMs, a.intervalMs);
        maxIntervalMs = maxIntervalMs === null ? a.intervalMs : Math.max(maxIntervalMs, a.intervalMs);
      }
      if (a.waitReason) waitReasons[a.waitReason] = (waitReasons[a.waitReason] ?? 0) + 1;
    }
    const intervalBreaches = timeline(record, host).filter((e) => e.breach).length;
    const policyVersions = versionShas(record, host).size;
    out.push({ host, ...counts, attempts: list.length, sent, bytes, minIntervalMs, maxIntervalMs, waitReasons, intervalBreaches, policyVersions });
  }
  return out.sort((a, b) => a.host.localeCompare(b.host));
}

/** A robots.txt body seen for a host, with the requests it governed. */
export interface PolicyVersion extends PolicyRow {
  /** Attempts to the host stamped with this version. */
  readonly governed: number;
}

/** sha256 of every body that governed a request to `host` or that a policy change of it names. */
function versionShas(record: CrawlRecord, host: string): Set<string> {
  const { attempts, changes, bodies } = index(record);
  const shas = new Set<string>();
  for (const a of attempts.get(host) ?? []) if (a.policySha256 && bodies.has(a.policySha256)) shas.add(a.policySha256);
  for (const c of changes.get(host) ?? []) {
    if (c.oldSha256 && bodies.has(c.oldSha256)) shas.add(c.oldSha256);
    if (c.newSha256 && bodies.has(c.newSha256)) shas.add(c.newSha256);
  }
  return shas;
}

/** The distinct robots.txt bodies seen for a host, oldest first, each as this host received it. */
export function policyVersions(record: CrawlRecord, host: string): PolicyVersion[] {
  const { attempts, changes, bodies } = index(record);
  const seen = new Map<string, { governed: number; fetchedAt: string | null; robotsUrl: string | null }>();
  for (const sha of versionShas(record, host)) seen.set(sha, { governed: 0, fetchedAt: null, robotsUrl: null });
  const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : ms(b) < ms(a) ? b : a);
  for (const a of attempts.get(host) ?? []) {
    const v = a.policySha256 ? seen.get(a.policySha256) : undefined;
    if (!v) continue;
    v.governed++;
    v.fetchedAt = earlier(v.fetchedAt, a.policyFetchedAt);
    v.robotsUrl ??= a.robotsUrl;
  }
  for (const c of changes.get(host) ?? []) {
    const v = c.newSha256 ? seen.get(c.newSha256) : undefined;
    if (v) v.fetchedAt = earlier(v.fetchedAt, c.at);
  }
  return [...seen]
    .map(([sha, v]) => {
      const row = bodies.get(sha)!;
      // The stored row may name another origin that served the same bytes: show this host's.
      const own = originHost(row.origin) === host;
      return {
        ...row,
        fetchedAt: own ? row.fetchedAt : v.fetchedAt ?? row.fetchedAt,
        robotsUrl: own ? row.robotsUrl : v.robotsUrl ?? row.robotsUrl,
        finalUrl: own ? row.finalUrl : v.robotsUrl ?? row.finalUrl,
        governed: v.governed,
      };
    })
    .sort((a, b) => ms(a.fetchedAt) - ms(b.fetchedAt));
}

/** The policy changes of a host (or of every host), oldest first. */
export function policyChanges(record: CrawlRecord, host?: string): PolicyChangeRow[] {
  if (host !== undefined) return (index(record).changes.get(host) ?? []).slice();
  return record.changes.slice().sort((a, b) => ms(a.at) - ms(b.at));
}

/** The input lines that were not URLs, in the order they were recorded. */
export function notUrlLines(record: CrawlRecord): NotUrlLine[] {
  return record.attempts
    .filter(isNotUrl)
    .map((a) => ({ text: a.url, reason: a.reason, error: a.error, at: a.startedAt, runId: a.runId }));
}

/** A request that reached a host (fetched, overridden, or ended in error), for its list. */
export interface SentEntry {
  readonly url: string;
  readonly at: string;
  readonly outcome: AttemptOutcome;
  readonly status: number | null;
  readonly bytes: number | null;
  readonly kind: AttemptRow['kind'];
  /** The interval (ms) waited before it, and why; null for the host's first request. */
  readonly intervalMs: number | null;
  readonly waitReason: string | null;
  readonly policySha256: string | null;
  readonly error: string | null;
}

/** The requests sent to `host`, in start order. */
export function sent(record: CrawlRecord, host: string): SentEntry[] {
  return (index(record).attempts.get(host) ?? [])
    .filter((a) => SENT.has(a.outcome))
    .map((a) => ({
      url: a.url, at: a.startedAt, outcome: a.outcome, status: a.status, bytes: a.bytes, kind: a.kind,
      intervalMs: a.intervalMs, waitReason: a.waitReason, policySha256: a.policySha256, error: a.error,
    }));
}

export function blocked(record: CrawlRecord, host?: string): BlockedEntry[] {
  return record.attempts
    .filter((a) => a.outcome === 'blocked' && (host === undefined || a.host === host))
    .map((a) => ({
      url: a.url,
      at: a.startedAt,
      reason: a.reason,
      ruleLine: a.ruleLine,
      rulePattern: a.rulePattern,
      robotsUrl: a.robotsUrl,
      policySha256: a.policySha256,
      policyStatus: a.policyStatus === null ? null : String(a.policyStatus),
    }));
}

