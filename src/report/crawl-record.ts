// What the report and the audit browser know about a crawl, and the summaries both show.
// Pure functions over the audit rows (src/audit/types.ts): no I/O, no Node built-ins, so the
// same code serves `robots-gate report` (Node) and the audit browser's API.
import type { AttemptOutcome, AttemptRow, PolicyChangeRow, PolicyRow } from '../audit/types.js';

/** Every row of one crawl's audit (one DIR, possibly several runs and several audit files). */
export interface CrawlRecord {
  readonly attempts: readonly AttemptRow[];
  readonly policies: readonly PolicyRow[];
  readonly changes: readonly PolicyChangeRow[];
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

export interface Totals extends OutcomeCounts {
  readonly runs: number;
  readonly hosts: number;
  readonly attempts: number;
  /** Bytes of saved content. */
  readonly bytes: number;
  /** Epoch ms of the first request start and the last request end; NaN when there are none. */
  readonly startMs: number;
  readonly endMs: number;
  readonly policies: number;
  readonly policyChanges: number;
}

export interface HostStats extends OutcomeCounts {
  readonly host: string;
  readonly attempts: number;
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

/** A blocked URL with the rule that decided it. */
export interface BlockedEntry {
  readonly url: string;
  readonly at: string;
  readonly reason: string;
  readonly ruleLine: number | null;
  readonly rulePattern: string | null;
  readonly robotsUrl: string | null;
  readonly policySha256: string | null;
}

/** Requests sent sooner than this before the interval ended count as breaches (timer slack). */
const BREACH_SLACK_MS = 5;

/** Every outcome, in the order tables show them. */
export const OUTCOMES: readonly AttemptOutcome[] = ['fetched', 'blocked', 'skipped', 'error', 'overridden'];

function zeroCounts(): OutcomeCounts {
  return { fetched: 0, blocked: 0, skipped: 0, error: 0, overridden: 0 };
}

const ms = (iso: string): number => Date.parse(iso);

/** The host (`name[:port]`) an origin such as `https://a.example:8443` names. */
export function originHost(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

/** Does a policy row belong to `host` (given as the audit writes it, with or without the port)? */
function policyIsForHost(policy: { origin: string }, host: string): boolean {
  try {
    const u = new URL(policy.origin);
    return u.host === host || u.hostname === host;
  } catch {
    return policy.origin === host;
  }
}

export function runs(record: CrawlRecord): RunSummary[] {
  const byRun = new Map<string, { startMs: number; endMs: number; attempts: number; hosts: Set<string> }>();
  for (const a of record.attempts) {
    let r = byRun.get(a.runId);
    if (!r) byRun.set(a.runId, (r = { startMs: Infinity, endMs: -Infinity, attempts: 0, hosts: new Set() }));
    r.startMs = Math.min(r.startMs, ms(a.startedAt));
    r.endMs = Math.max(r.endMs, ms(a.endedAt));
    r.attempts++;
    r.hosts.add(a.host);
  }
  return [...byRun]
    .map(([runId, r]) => ({ runId, startMs: r.startMs, endMs: r.endMs, attempts: r.attempts, hosts: r.hosts.size }))
    .sort((a, b) => a.startMs - b.startMs);
}

/** The record narrowed to one run (policies are shared: they are keyed by content). */
export function forRun(record: CrawlRecord, runId: string | undefined): CrawlRecord {
  if (!runId) return record;
  return {
    attempts: record.attempts.filter((a) => a.runId === runId),
    policies: record.policies,
    changes: record.changes.filter((c) => c.runId === runId),
  };
}

export function totals(record: CrawlRecord): Totals {
  const counts = zeroCounts();
  let bytes = 0;
  let startMs = Infinity;
  let endMs = -Infinity;
  const hosts = new Set<string>();
  const runIds = new Set<string>();
  for (const a of record.attempts) {
    counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
    bytes += a.bytes ?? 0;
    startMs = Math.min(startMs, ms(a.startedAt));
    endMs = Math.max(endMs, ms(a.endedAt));
    hosts.add(a.host);
    runIds.add(a.runId);
  }
  return {
    ...counts,
    runs: runIds.size,
    hosts: hosts.size,
    attempts: record.attempts.length,
    bytes,
    startMs: record.attempts.length ? startMs : NaN,
    endMs: record.attempts.length ? endMs : NaN,
    policies: record.policies.length,
    policyChanges: record.changes.length,
  };
}

/** Attempts grouped by host, each list in start order. */
function attemptsByHost(record: CrawlRecord): Map<string, AttemptRow[]> {
  const byHost = new Map<string, AttemptRow[]>();
  for (const a of record.attempts) {
    let list = byHost.get(a.host);
    if (!list) byHost.set(a.host, (list = []));
    list.push(a);
  }
  for (const list of byHost.values()) list.sort((a, b) => ms(a.startedAt) - ms(b.startedAt));
  return byHost;
}

/** Requests that reached the host (blocked and skipped ones never left the process). */
const SENT: ReadonlySet<AttemptOutcome> = new Set(['fetched', 'error', 'overridden']);

export function timeline(record: CrawlRecord, host: string): TimelineEntry[] {
  const list = attemptsByHost(record).get(host) ?? [];
  let prevEndMs: number | null = null;
  return list.map((a) => {
    const startMs = ms(a.startedAt);
    const endMs = Math.max(startMs, ms(a.endedAt));
    const sent = SENT.has(a.outcome);
    const gapMs = sent && prevEndMs !== null ? startMs - prevEndMs : null;
    const breach = gapMs !== null && a.intervalMs !== null && a.intervalMs !== undefined && gapMs + BREACH_SLACK_MS < a.intervalMs;
    const entry: TimelineEntry = {
      url: a.url, startMs, endMs, outcome: a.outcome, status: a.status, waitReason: a.waitReason,
      intervalMs: a.intervalMs, prevEndMs: sent ? prevEndMs : null, gapMs, breach, kind: a.kind,
    };
    if (sent) prevEndMs = prevEndMs === null ? endMs : Math.max(prevEndMs, endMs);
    return entry;
  });
}

export function hostStats(record: CrawlRecord): HostStats[] {
  const out: HostStats[] = [];
  for (const [host, list] of attemptsByHost(record)) {
    const counts = zeroCounts();
    let bytes = 0;
    let minIntervalMs: number | null = null;
    let maxIntervalMs: number | null = null;
    const waitReasons: Record<string, number> = {};
    for (const a of list) {
      counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
      bytes += a.bytes ?? 0;
      if (a.intervalMs !== null && a.intervalMs !== undefined) {
        minIntervalMs = minIntervalMs === null ? a.intervalMs : Math.min(minIntervalMs, a.intervalMs);
        maxIntervalMs = maxIntervalMs === null ? a.intervalMs : Math.max(maxIntervalMs, a.intervalMs);
      }
      if (a.waitReason) waitReasons[a.waitReason] = (waitReasons[a.waitReason] ?? 0) + 1;
    }
    const intervalBreaches = timeline(record, host).filter((e) => e.breach).length;
    const policyVersions = record.policies.filter((p) => policyIsForHost(p, host)).length;
    out.push({ host, ...counts, attempts: list.length, bytes, minIntervalMs, maxIntervalMs, waitReasons, intervalBreaches, policyVersions });
  }
  return out.sort((a, b) => a.host.localeCompare(b.host));
}

/** A robots.txt body seen for a host, with the requests it governed. */
export interface PolicyVersion extends PolicyRow {
  /** Attempts to the host stamped with this version. */
  readonly governed: number;
}

/** The distinct robots.txt bodies seen for a host, oldest first. */
export function policyVersions(record: CrawlRecord, host: string): PolicyVersion[] {
  const governed = new Map<string, number>();
  for (const a of record.attempts) {
    if (a.host === host && a.policySha256) governed.set(a.policySha256, (governed.get(a.policySha256) ?? 0) + 1);
  }
  return record.policies
    .filter((p) => policyIsForHost(p, host))
    .sort((a, b) => ms(a.fetchedAt) - ms(b.fetchedAt))
    .map((p) => ({ ...p, governed: governed.get(p.sha256) ?? 0 }));
}

/** The policy changes of a host, oldest first. */
export function policyChanges(record: CrawlRecord, host?: string): PolicyChangeRow[] {
  return record.changes
    .filter((c) => host === undefined || policyIsForHost(c, host))
    .slice()
    .sort((a, b) => ms(a.at) - ms(b.at));
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
    }));
}

