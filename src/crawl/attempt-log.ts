// The crawl's attempt rows: building each row, writing it to the audit, and the counts the summary
// and the progress line read (per run and per host).
import type { AttemptOutcome, AttemptRow, AuditSink } from '../audit/types.js';
import type { Decision } from '../gate/types.js';
import type { TakenItem, WaitReason } from '../politeness/types.js';
import type { UsageVerdict } from '../usage/index.js';
import { DocumentPlacementError } from './document-store.js';
import type { Hop } from './types.js';
import type { UsageCheck } from './usage-check.js';
import { decisionStamp } from '../audit/stamp.js';

/** Per-host figures for the summary. */
export interface HostStats {
  readonly host: string;
  /** Final outcomes per URL. */
  outcomes: Partial<Record<AttemptOutcome, number>>;
  /** URLs of this host not settled yet. */
  remaining: number;
  /** Largest interval applied (ms) and what it came from. */
  maxIntervalMs: number;
  maxIntervalReason: string | null;
  /** Crawl-delay in SECONDS from the governing group, if any. */
  crawlDelaySeconds: number | undefined;
  /** ms since epoch of the first request start and last response end (robots.txt aside: see
   *  spanStart). */
  firstAt: number | undefined;
  lastAt: number | undefined;
  /** ms since epoch its robots.txt was last fetched, as the gate reported it: the host's first
   *  request keeps its interval from there. */
  robotsAt: number | undefined;
  /** Why the host was skipped, if it was. */
  skippedBecause: string | undefined;
  /** ms since epoch: the host is backed off (429/503, Retry-After) until then. */
  backoffUntil: number | undefined;
  /** Its robots.txt was unreachable at the latest check (5xx, network, timeout): everything
   *  there was disallowed (RFC 9309 §2.3.1.4). */
  robotsUnreachable: boolean;
}

export interface CrawlStats {
  readonly startedAt: number;
  /** Final outcomes per URL (invalid input lines count as `skipped`). */
  readonly outcomes: Record<AttemptOutcome, number>;
  /** Attempt rows written (hops and retries included). */
  readonly attempts: number;
  readonly bytes: number;
  /** Documents cut at the page-size cap. */
  readonly truncated: number;
  readonly policyChanges: number;
  readonly hosts: ReadonlyMap<string, HostStats>;
  /** Politeness bound on the time left (ms): max over hosts of the wait for the host's next slot
   *  (from its last response, or its Retry-After) plus its other URLs left × interval. */
  readonly etaMs: number;
  /** Redirect targets the crawl scheduled as URLs of their own (not in the list): found so far,
   *  and settled (counted in `outcomes`). */
  readonly redirectsFound: number;
  readonly redirectTargets: number;
  /** The first URLs that ended in error (network, 5xx, 429 out of retries), in the order they
   *  settled, at most FAILED_KEPT; `outcomes.error` counts them all. */
  readonly failed: readonly FailedUrl[];
}

/** A URL that ended in error, for the summary. */
export interface FailedUrl {
  readonly url: string;
  /** The row's reason: `http-500`, `network-error`, `check-failed`, … */
  readonly reason: string;
}

/** Failed URLs kept for the summary; the audit has every one. */
export const FAILED_KEPT = 10;

// Rows at full speed share milliseconds: remember the last conversion.
let isoMs = NaN;
let isoText = '';
export const iso = (ms: number) => (ms === isoMs ? isoText : ((isoMs = ms), (isoText = new Date(ms).toISOString())));

/** What differs between rows; the rest defaults to null. Times in ms since epoch. */
export interface RowParts {
  url: string;
  host: string;
  startMs: number;
  endMs: number;
  outcome: AttemptOutcome;
  reason?: string;
  decision?: Decision;
  status?: number | null;
  bytes?: number | null;
  contentSha256?: string | null;
  savedPath?: string | null;
  parentUrl?: string | null;
  kind?: AttemptRow['kind'];
  waitReason?: string | null;
  intervalMs?: number | null;
  error?: string | null;
  attempt?: number;
  final: boolean;
  location?: string | null;
  headers?: Readonly<Record<string, string>> | null;
  truncated?: boolean;
  usage?: UsageVerdict | null;
  /** This row settles its frontier item (default true; false for the later hops of a chain
   *  the transport followed itself). */
  settles?: boolean;
}

/** Writes a crawl's attempt rows and keeps its counts. */
export class AttemptLog {
  readonly hostStats = new Map<string, HostStats>();
  readonly outcomes: Record<AttemptOutcome, number> = { fetched: 0, blocked: 0, skipped: 0, error: 0, overridden: 0 };
  attempts = 0;
  bytes = 0;
  truncated = 0;
  redirectTargets = 0;
  readonly failed: FailedUrl[] = [];

  constructor(
    private readonly audit: AuditSink,
    private readonly runId: string,
    private readonly usage: UsageCheck,
  ) {}

  /** Build the row (one object literal: this runs for every attempt). */
  row(p: RowParts): AttemptRow {
    const d = p.decision;
    return {
      runId: this.runId,
      url: p.url,
      host: p.host,
      startedAt: iso(p.startMs),
      endedAt: iso(p.endMs),
      outcome: p.outcome,
      status: p.status ?? null,
      bytes: p.bytes ?? null,
      contentSha256: p.contentSha256 ?? null,
      savedPath: p.savedPath ?? null,
      ...decisionStamp(d),
      reason: p.reason ?? d?.reason ?? '',
      // A usage reservation is decided by a usage line or header, not by the access rule.
      ...(p.reason === 'usage-reserved' || (p.reason === undefined && d?.reason === 'usage-reserved')
        ? this.usage.decidingLine(p.usage ?? d?.usage)
        : {}),
      parentUrl: p.parentUrl ?? null,
      kind: p.kind ?? 'page',
      waitReason: p.waitReason ?? null,
      intervalMs: p.intervalMs ?? null,
      error: p.error ?? null,
      attempt: p.attempt ?? 1,
      final: p.final,
      location: p.location ?? null,
      headers: p.headers ?? null,
      truncated: p.truncated ?? false,
      // A blocked row carries the verdict of the decision that blocked it, whichever path wrote it
      // (the queue re-checked after a robots.txt load, a redirect hop decided at once).
      usage: p.usage ?? (p.outcome === 'blocked' ? (d?.usage ?? null) : null),
    };
  }

  /** Write a row (throws AuditWriteError: the run stops) and keep the counts. */
  write(p: RowParts): void {
    this.audit.recordAttempt(this.row(p));
    this.attempts++;
    if (p.bytes) this.bytes += p.bytes;
    // Cut at --max-page-bytes: a body cut short by a failure (a stall, a reset) says truncated
    // too, but that row is an error, counted as one.
    if (p.truncated && !p.error) this.truncated++;
    // Every request sent is part of its host's span, a retried 503 included: the host's time and
    // the back-off that held its retry are the summary's "slowest hosts".
    if (p.status != null && p.host !== '') {
      const hs = this.host(p.host);
      if (hs.firstAt === undefined || p.startMs < hs.firstAt) hs.firstAt = p.startMs;
      if (hs.lastAt === undefined || p.endMs > hs.lastAt) hs.lastAt = p.endMs;
    }
    if (!p.final || p.settles === false) {
      this.noteInterval(p);
      return;
    }
    this.outcomes[p.outcome]++;
    if (p.kind === 'redirect') this.redirectTargets++;
    if (p.outcome === 'error' && this.failed.length < FAILED_KEPT) this.failed.push({ url: p.url, reason: p.reason ?? '' });
    if (p.host === '') return;
    const hs = this.host(p.host);
    hs.outcomes[p.outcome] = (hs.outcomes[p.outcome] ?? 0) + 1;
    // Never below 0: a host skipped on its first visit settles its queue before it is counted.
    if (hs.remaining > 0) hs.remaining--;
    this.noteInterval(p);
  }

  private noteInterval(p: RowParts): void {
    if (p.intervalMs == null || p.host === '') return;
    const hs = this.host(p.host);
    // The host's first request of the run keeps its interval from the robots.txt request, when
    // this run made one before it: that request counts toward the host's interval (the limiter's
    // rule) and opens its span (spanStart), as `audit` and the report count it. After a resume
    // that found the copy fresh, no robots.txt request spaced it from anything of this run.
    if (hs.firstAt === undefined || (p.startMs <= hs.firstAt && !(hs.robotsAt !== undefined && hs.robotsAt <= p.startMs))) return;
    if (p.intervalMs > hs.maxIntervalMs) {
      hs.maxIntervalMs = p.intervalMs;
      hs.maxIntervalReason = p.waitReason ?? null;
    }
  }

  host(host: string): HostStats {
    let h = this.hostStats.get(host);
    if (!h) {
      h = {
        host,
        outcomes: {},
        remaining: 0,
        maxIntervalMs: 0,
        maxIntervalReason: null,
        crawlDelaySeconds: undefined,
        firstAt: undefined,
        lastAt: undefined,
        robotsAt: undefined,
        skippedBecause: undefined,
        backoffUntil: undefined,
        robotsUnreachable: false,
      };
      this.hostStats.set(host, h);
    }
    return h;
  }
}

/** The row of one hop of a transport's result (`first`: the URL's own request). `aborted`: the run's
 *  signal has aborted. */
export function hopRow(
  hop: Hop,
  via: { kind: AttemptRow['kind']; parentUrl: string | null },
  first: boolean,
  pageHost: string,
  t: TakenItem,
  x: {
    retry: boolean;
    isLast: boolean;
    saved: { savedPath: string; sha256: string } | undefined;
    bytes: number | null;
    truncated: boolean;
    saveError: unknown;
    usage?: { usage: UsageVerdict; keep: boolean };
    /** The interval the request was sent under, as asked of the limiter: the frontier's, raised
     *  to the policy its decision was made on (a Crawl-delay learned at a refetch, an override).
     *  After a back-off the frontier's figure stands: it is the back-off's length. */
    interval?: { ms: number; reason: WaitReason };
  },
aborted: boolean,
): RowParts {
  let outcome: AttemptOutcome;
  let reason: string = hop.decision.reason;
  if (hop.blocked) outcome = 'blocked';
  else if (hop.error) {
    outcome = 'error';
    reason = hop.error.code === 'AbortError' || aborted ? 'aborted' : 'network-error';
  } else if (hop.status !== null && (hop.status >= 500 || hop.status === 429)) {
    outcome = 'error';
    reason = `http-${hop.status}`;
  } else outcome = hop.decision.overridden ? 'overridden' : 'fetched';
  if (x.saveError instanceof DocumentPlacementError) {
    outcome = 'error';
    reason = 'document-unplaceable';
  } else if (x.saveError !== undefined) reason = 'save-failed';
  // Fetched, and not kept: the response itself reserves the crawl's purpose.
  else if (x.usage !== undefined && !x.usage.keep) reason = 'usage-reserved';
  return {
    url: hop.url,
    host: first ? pageHost : safeHost(hop.url),
    startMs: hop.startedAt,
    endMs: hop.endedAt,
    decision: hop.decision,
    outcome,
    reason,
    status: hop.status,
    bytes: x.bytes,
    contentSha256: x.saved?.sha256 ?? null,
    savedPath: x.saved?.savedPath ?? null,
    parentUrl: via.parentUrl,
    kind: via.kind,
    waitReason: first ? (t.waitReason === 'backoff' ? t.waitReason : (x.interval?.reason ?? t.waitReason ?? null)) : null,
    intervalMs: first ? (t.waitReason === 'backoff' ? (t.intervalMs ?? null) : (x.interval?.ms ?? t.intervalMs ?? null)) : null,
    error: hop.error ? `${hop.error.code}: ${hop.error.message}` : x.saveError !== undefined ? errText(x.saveError) : null,
    attempt: t.item.attempt,
    // An aborted or retried attempt does not settle its URL; --resume will try it again.
    final: !x.retry && reason !== 'aborted' && reason !== 'save-failed',
    settles: first,
    location: hop.location,
    headers: hop.status !== null ? hop.headers : null,
    truncated: x.truncated,
    usage: x.usage?.usage ?? (hop.blocked ? (hop.decision.usage ?? null) : null),
  };
}


export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** When the host's time in this run began (ms since epoch): its robots.txt response, when this run
 *  fetched one before its first request (that request waited its interval from it), else the first
 *  request's start; undefined before either. */
export function spanStart(h: HostStats): number | undefined {
  if (h.robotsAt !== undefined && (h.firstAt === undefined || h.robotsAt < h.firstAt)) return h.robotsAt;
  return h.firstAt;
}
