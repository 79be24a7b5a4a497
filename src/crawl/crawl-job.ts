// The crawl job: takes URLs from a Frontier (memory or Redis: it never knows which), puts each
// to the gate, keeps each host's politeness, fetches through a DocumentTransport (HTTP or
// browser), saves documents, and writes one audit row per attempt when it happens.
import type { AttemptOutcome, AttemptRow, AuditSink } from '../audit/types.js';
import type { Decision, PolicyChange } from '../gate/types.js';
import { DocumentPlacementError, OutputWriteError, saveDocument } from './document-store.js';
import type { Frontier, TakenItem, WaitReason } from '../politeness/types.js';
import { defaultLimiter, pacerFor, type Pacer } from '../politeness/pacer.js';
import type { PolicyRecord, RateLimiter } from '../stores/types.js';
import { retryAfterMs } from '../politeness/retry-after.js';
import { parseTdmRep, type Purpose, type UsageVerdict } from '../usage/index.js';
import { UsageCheck, type TdmRepCopy } from './usage-check.js';
import type { CrawlGate, DocumentTransport, Hop } from './types.js';
import { policySnapshot } from '../gate/policy-record.js';

export interface CrawlJobOptions {
  readonly gate: CrawlGate;
  readonly frontier: Frontier;
  readonly transport: DocumentTransport;
  readonly audit: AuditSink;
  /** Documents are saved here (see documentPath). */
  readonly outDir: string;
  readonly runId: string;
  /** A Crawl-delay above this (SECONDS) skips the host's URLs, reason `crawl-delay-too-long`,
   *  unless `clampCrawlDelay`. Default 60. */
  readonly maxCrawlDelaySeconds?: number;
  /** Keep such hosts, at `maxCrawlDelaySeconds` between requests. Default false. */
  readonly clampCrawlDelay?: boolean;
  /** Interval (ms) for a host under override; must match the frontier's. Default 10,000. */
  readonly overrideIntervalMs?: number;
  /** The frontier's floor (ms), without jitter. Used only for a host's first request of this run,
   *  which the frontier does not space: it keeps this from any earlier request the limiter knows
   *  (a robots.txt request, a request of another door, a seeded earlier run). Default 0. */
  readonly minIntervalMs?: number;
  /** Where each host's slot is taken before a request is sent, so that the gate's robots.txt
   *  requests and other doors (gate.fetch, the interceptor) sharing it keep one clock per host
   *  with the crawl. Default: the gate's `limiter`, else the process's one. */
  readonly limiter?: RateLimiter;
  /** Retries of a URL answered 429 or 503. Default 2. */
  readonly maxRetries?: number;
  /** Back-off (ms) after a 429/503 without a usable Retry-After. Default 10,000. */
  readonly defaultBackoffMs?: number;
  /** Longest Retry-After honoured (ms); longer ones are cut to this. Default 3,600,000. */
  readonly maxBackoffMs?: number;
  /** Redirect hops followed at most from a URL of the list (when the transport leaves
   *  redirects to the crawl). Default 5. */
  readonly maxRedirects?: number;
  /** Stops taking new URLs; requests in flight are aborted (their rows say so, not final). */
  readonly signal?: AbortSignal;
  /** After the signal aborts, how long (ms) to wait for the work in flight to finish its
   *  frontier and store calls; a shared frontier whose Redis is away would hold them for ever.
   *  Default 2,000. */
  readonly abortGraceMs?: number;
  /** For the audit's run row (see CrawlJob.recordStart): the User-Agent (default: the gate's),
   *  the options that matter for re-reading the run, the run this one resumes, the fleet
   *  worker's name. */
  readonly userAgent?: string;
  readonly runOptions?: Readonly<Record<string, unknown>>;
  readonly resumeOf?: string | null;
  readonly worker?: string | null;
  /** What the documents are for. Robots.txt usage lines that reserve it refuse the URL (the gate
   *  with the same `purpose` does that); an origin's TDMRep file that reserves it refuses the URL
   *  too (read once per origin, only under a purpose); a response whose verdict reserves it is
   *  fetched but not kept (reason `usage-reserved`). Without one, verdicts are recorded only. */
  readonly purpose?: Purpose;
}

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
  /** ms since epoch of the first request start and last response end. */
  firstAt: number | undefined;
  lastAt: number | undefined;
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

export interface CrawlResult {
  readonly status: 'completed' | 'interrupted';
  readonly stats: CrawlStats;
  /** Items still waiting on the frontier or the gate's store when an interrupted run gave up
   *  on them (`abortGraceMs`): nothing more of them is sent; a shared frontier hands their URLs
   *  to other workers when their leases expire. */
  readonly abandoned: number;
}

// Rows at full speed share milliseconds: remember the last conversion.
let isoMs = NaN;
let isoText = '';
const iso = (ms: number) => (ms === isoMs ? isoText : ((isoMs = ms), (isoText = new Date(ms).toISOString())));

/** What differs between rows; the rest defaults to null. Times in ms since epoch. */
interface RowParts {
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
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One crawl: `expect()` the URLs added to the frontier, then `run()`. Listens to the gate's
 * 'policy' (texts into the audit) and 'policy-change' (change rows, queue re-evaluation) events
 * from its run row (`recordStart()`) to the end of `run()`: a robots.txt the gate fetched in
 * between (while sitemaps were read, say) stamps rows later from the gate's cache, with no new
 * event, and its text must be in the audit all the same. Every attempt gets its row before the
 * frontier is told the URL is done.
 */
export class CrawlJob {
  private readonly o: Required<Omit<CrawlJobOptions, 'signal' | 'userAgent' | 'purpose' | 'limiter'>> & { signal: AbortSignal | undefined; userAgent: string | undefined };
  private readonly pacer: Pacer;
  private readonly changedHosts = new Set<string>();
  private readonly visited = new Set<string>();
  /** Redirect targets this job scheduled: where each came from, and how many hops deep. */
  private readonly redirects = new Map<string, { parent: string; depth: number }>();
  private readonly hostStats = new Map<string, HostStats>();
  private readonly outcomes: Record<AttemptOutcome, number> = { fetched: 0, blocked: 0, skipped: 0, error: 0, overridden: 0 };
  private attempts = 0;
  private bytes = 0;
  private truncated = 0;
  private policyChanges = 0;
  private redirectTargets = 0;
  private readonly failed: FailedUrl[] = [];
  private fatal: unknown;
  private readonly startedAt = Date.now();
  private minIntervalGuessMs = 2_000;
  private readonly usage: UsageCheck;
  /** TDMRep files read this run, per origin (under a purpose only). */
  private readonly tdmReps = new Map<string, TdmRepCopy>();

  constructor(options: CrawlJobOptions) {
    this.o = {
      maxCrawlDelaySeconds: 60,
      clampCrawlDelay: false,
      overrideIntervalMs: 10_000,
      minIntervalMs: 0,
      maxRetries: 2,
      defaultBackoffMs: 10_000,
      maxBackoffMs: 3_600_000,
      maxRedirects: 5,
      abortGraceMs: 2_000,
      runOptions: {},
      resumeOf: null,
      worker: null,
      ...options,
      signal: options.signal,
      userAgent: options.userAgent ?? options.gate.userAgent,
    };
    const tokens = (options.gate as { productToken?: string | readonly string[] }).productToken;
    this.usage = new UsageCheck({ purpose: options.purpose, productTokens: tokens === undefined ? [] : typeof tokens === 'string' ? [tokens] : tokens });
    this.pacer = pacerFor(options.limiter ?? options.gate.limiter ?? defaultLimiter());
  }

  private started = false;
  /** True once `expect()` told the job each host's URLs; otherwise a host's count is learned
   *  from its queue on its first visit. */
  private expected = false;

  /**
   * Write the audit's run row (the run's id, start time, user agent, options), once; `run()`
   * and `recordInvalid()` call it, so library users get the same audit as the CLI. Call it
   * yourself to learn early that the audit cannot be written.
   * @throws AuditWriteError
   */
  recordStart(): void {
    if (this.started) return;
    this.listen();
    this.o.audit.recordRun?.({
      runId: this.o.runId,
      startedAt: iso(Date.now()),
      userAgent: this.o.userAgent ?? '',
      options: this.o.runOptions,
      resumeOf: this.o.resumeOf,
      worker: this.o.worker,
    });
    this.started = true;
  }

  /** Tell the job how many URLs each host starts with (for per-host progress and the ETA), and
   *  the floor interval (ms) to assume for hosts not yet visited. */
  expect(urls: readonly { host: string }[], minIntervalMs: number): void {
    this.minIntervalGuessMs = minIntervalMs;
    this.expected = true;
    for (const { host } of urls) this.host(host).remaining++;
  }

  /** Schedule redirect targets left unfollowed by an earlier run (`--resume`), so a kill between
   *  a 3xx and its target loses nothing. */
  async resumeRedirects(targets: readonly { url: string; parentUrl: string }[]): Promise<void> {
    for (const r of targets) await this.scheduleRedirect(r.parentUrl, r.url, 1);
  }

  /** Record an input line that is not a usable URL: a `skipped` row, reason `invalid-url` or
   *  `unsupported-scheme`. */
  recordInvalid(text: string, reason: string, message: string): void {
    this.recordStart();
    const now = Date.now();
    this.write({ url: text, host: '', startMs: now, endMs: now, outcome: 'skipped', reason, error: message, final: true });
  }

  /**
   * Run until the frontier is drained, the signal aborts, or a fatal error (the audit or the
   * output directory cannot be written). The audit gets the run's start row (if not written
   * yet) and its end row (status completed, interrupted or failed, with the final counts).
   * @throws AuditWriteError / OutputWriteError: the run cannot go on; rows written are intact.
   */
  async run(): Promise<CrawlResult> {
    this.recordStart();
    let result: CrawlResult;
    try {
      result = await this.crawl();
    } catch (err) {
      this.recordEnd('failed', err);
      throw err;
    } finally {
      this.unlisten?.();
    }
    this.recordEnd(result.status, undefined);
    return result;
  }

  private unlisten: (() => void) | undefined;

  private listen(): void {
    if (this.unlisten) return;
    const { gate } = this.o;
    const onPolicy = (r: PolicyRecord) => this.guard(() => this.onPolicy(r));
    const onChange = (c: PolicyChange) => this.guard(() => this.onChange(c));
    gate.on('policy', onPolicy);
    gate.on('policy-change', onChange);
    this.unlisten = () => {
      gate.off?.('policy', onPolicy as never);
      gate.off?.('policy-change', onChange as never);
      this.unlisten = undefined;
    };
  }

  private recordEnd(status: 'completed' | 'interrupted' | 'failed', failure: unknown): void {
    try {
      this.o.audit.recordRunEnd?.({
        runId: this.o.runId,
        endedAt: iso(Date.now()),
        status,
        counts: { ...this.outcomes },
        error: failure === undefined ? null : errText(failure),
      });
    } catch (err) {
      // The audit failing at the end of a run that went well is the run's failure; after a
      // failure, that one is the one reported.
      if (failure === undefined) throw err;
    }
  }

  private async crawl(): Promise<CrawlResult> {
    const { frontier, signal } = this.o;
    const inflight = new Set<Promise<void>>();
    let abandoned = 0;
    let completions = 0;
    let wake: (() => void) | undefined;
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (this.fatal !== undefined || signal?.aborted) break;
        const seen = completions;
        let r: Awaited<ReturnType<Frontier['take']>> | undefined;
        try {
          // An interrupt must not wait for the frontier: a shared one whose Redis is away
          // answers only when Redis is back, and Ctrl-C would do nothing until then.
          r = await unlessAborted(frontier.take(), signal);
          if (r === undefined) break;
        } catch (err) {
          // A frontier that fails (a shared one whose store is gone for good) stops the run;
          // the requests in flight still finish and get their rows.
          this.fatal ??= err;
          break;
        }
        if (r.kind === 'item') {
          const p: Promise<void> = this.process(r)
            .catch((err) => {
              this.fatal ??= err;
            })
            .finally(() => {
              inflight.delete(p);
              completions++;
              wake?.();
            });
          inflight.add(p);
          continue;
        }
        if (r.kind === 'drained') break;
        if (completions !== seen) continue;
        // Sleep until the earliest host opens, or something of ours completes. With nothing of
        // ours in flight and no time given, poll now and then: a shared frontier can change
        // under us (other workers finish).
        // A wait past the longest Node timer (2^31 - 1 ms) is slept in steps: a longer timer fires
        // after 1 ms, and the loop would spin.
        const ms = r.retryAt !== null ? Math.min(Math.max(0, r.retryAt - Date.now()), MAX_TIMER_MS) : inflight.size > 0 ? undefined : 1_000;
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (ms !== undefined) timer = setTimeout(resolve, ms);
        });
        if (timer !== undefined) clearTimeout(timer);
        wake = undefined;
      }
      if (signal?.aborted) {
        // Requests in flight were aborted with the signal and get their rows at once; what
        // still waits after the grace period waits on the frontier or the store (Redis away).
        const all = Promise.all(inflight);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, this.o.abortGraceMs)))]);
        clearTimeout(timer);
        abandoned = inflight.size;
      } else await Promise.all(inflight);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (this.fatal !== undefined) throw this.fatal;
    return { status: signal?.aborted ? 'interrupted' : 'completed', stats: this.stats(), abandoned };
  }

  stats(): CrawlStats {
    let etaMs = 0;
    const now = Date.now();
    for (const h of this.hostStats.values()) {
      if (h.remaining <= 0 || h.skippedBecause) continue;
      const interval = Math.max(h.maxIntervalMs, (h.crawlDelaySeconds ?? 0) * 1000, this.minIntervalGuessMs);
      // The host's next request waits for its slot: until its Retry-After, or one interval after
      // its last response (so the bound counts down between two requests instead of standing
      // still); a host not visited yet waits an interval after its robots.txt request.
      const held = h.backoffUntil !== undefined ? Math.max(0, h.backoffUntil - now) : 0;
      const next = held > 0 ? held : h.lastAt !== undefined ? Math.max(0, h.lastAt + interval - now) : interval;
      etaMs = Math.max(etaMs, next + (h.remaining - 1) * interval);
    }
    return {
      startedAt: this.startedAt,
      outcomes: { ...this.outcomes },
      attempts: this.attempts,
      bytes: this.bytes,
      truncated: this.truncated,
      policyChanges: this.policyChanges,
      hosts: this.hostStats,
      etaMs,
      redirectsFound: this.redirects.size,
      redirectTargets: this.redirectTargets,
      failed: [...this.failed],
    };
  }

  // --- one URL -------------------------------------------------------------------------------

  private async process(t: TakenItem): Promise<void> {
    const { frontier, gate } = this.o;
    const { url, host } = t.item;
    const checkedAt = Date.now();
    let decision: Decision;
    // The check may send this host's robots.txt request: the rows recorded so far go first.
    this.o.audit.flush?.(host);
    try {
      decision = await gate.check(url);
    } catch (err) {
      this.write({ url, host, ...this.via(url), startMs: checkedAt, endMs: Date.now(), outcome: 'error', reason: 'check-failed', error: errText(err), final: true, attempt: t.item.attempt });
      await frontier.fail(t, Date.now(), { notSent: true });
      return;
    }
    // A Crawl-delay over the maximum skips the host: every URL of it, allowed or not.
    const hs = this.host(host);
    hs.robotsUnreachable = decision.reason === 'unreachable';
    const delay = decision.crawlDelaySeconds;
    if (delay !== undefined && delay > this.o.maxCrawlDelaySeconds && !this.o.clampCrawlDelay) {
      this.changedHosts.delete(host);
      await this.skipHost(t, decision, delay);
      return;
    }
    // On a host's first visit, and after a policy change seen by that check (or an earlier one),
    // its queue is put to the policy now, before anything more is sent to it: the URLs it
    // disallows are recorded and leave the queue at once instead of waiting their turn behind
    // the host's interval (and the ETA counts only what will be sent).
    if (this.changedHosts.delete(host) || !this.visited.has(host)) {
      this.visited.add(host);
      await this.reEvaluate(host);
    }
    // The attempt starts once decided: a robots.txt fetch made by the check is not part of it,
    // so a policy-change boundary always falls before the attempts it governs.
    const decidedAt = Date.now();

    const crawlDelaySeconds = delay === undefined ? undefined : Math.min(delay, this.o.maxCrawlDelaySeconds);
    hs.crawlDelaySeconds = crawlDelaySeconds;
    const underOverride = await gate.isUnderOverride(host);
    await frontier.setHostPolicy(host, { crawlDelaySeconds, underOverride });

    if (!decision.allowed) {
      this.write({ url, host, ...this.via(url), startMs: decidedAt, endMs: Date.now(), decision, outcome: 'blocked', final: true, attempt: t.item.attempt, usage: decision.usage ?? null });
      await frontier.complete(t, Date.now(), { notSent: true });
      return;
    }

    let tdm: TdmRepCopy | null = null;
    if (this.usage.purpose !== undefined) {
      const copy = await this.tdmRep(t, decision, crawlDelaySeconds, underOverride);
      if (copy === undefined) {
        // Interrupted while waiting for the slot: nothing was sent; --resume tries the URL again.
        await frontier.fail(t, Date.now(), { notSent: true });
        return;
      }
      tdm = copy;
      const reserved = this.usage.reservedByTdmRep(url, tdm);
      if (reserved !== null) {
        const at = Date.now();
        this.write({ url, host, ...this.via(url), startMs: at, endMs: at, decision, outcome: 'blocked', reason: 'usage-reserved', final: true, attempt: t.item.attempt, usage: reserved });
        await frontier.complete(t, this.tdmEndedAt ?? at, this.tdmEndedAt === undefined ? { notSent: true } : undefined);
        return;
      }
    }

    // The frontier opened the slot under the interval known then; the limiter also knows what the
    // frontier does not: the robots.txt requests the check made (first load, refresh, a redirect
    // into this host), other doors on the same limiter, and a policy learned just now (a new
    // Crawl-delay, an override). Take the host's slot there under the full interval.
    const interval = this.interval(t, crawlDelaySeconds, underOverride);
    let slot;
    try {
      slot = await this.pacer.take(host, interval, this.o.signal, url);
    } catch {
      // Interrupted while waiting: nothing was sent; --resume tries the URL again.
      await frontier.fail(t, Date.now(), { notSent: true });
      return;
    }
    let result: Awaited<ReturnType<DocumentTransport['fetch']>>;
    try {
      // The crash promise: every row recorded before this request is durable before it is sent.
      this.o.audit.flush?.(host);
      result = await this.o.transport.fetch(url, { decision, signal: this.o.signal, slotHeld: true });
    } catch (err) {
      await slot.release(Date.now());
      throw err;
    }
    const last = result.hops[result.hops.length - 1]!;
    if (decision.overridden || (await gate.isUnderOverride(host)) !== underOverride) {
      await frontier.setHostPolicy(host, { crawlDelaySeconds, underOverride: true });
    }

    const status = last.status;
    const backoff = status === 429 || status === 503;
    const retry = backoff && t.item.attempt <= this.o.maxRetries && !this.o.signal?.aborted;
    let saved: { savedPath: string; sha256: string } | undefined;
    let saveError: unknown;
    const answered = status !== null && status >= 200 && status < 300 && !last.blocked;
    const usage = answered ? this.usage.document(last.decision, last, result.body, tdm) : undefined;
    if (answered && usage!.keep) {
      try {
        saved = await saveDocument(this.o.outDir, last.url, result.body);
      } catch (err) {
        saveError = err;
      }
    }

    const via = this.via(url);
    for (let i = 0; i < result.hops.length; i++) {
      const hop = result.hops[i]!;
      const isLast = i === result.hops.length - 1;
      this.write(
        this.hopRow(hop, i === 0 ? via : { kind: 'redirect', parentUrl: result.hops[i - 1]!.url }, i === 0, host, t, {
          retry,
          isLast,
          saved: isLast ? saved : undefined,
          bytes: isLast ? result.body.byteLength : null,
          truncated: isLast && result.truncated,
          saveError: isLast ? saveError : undefined,
          usage: isLast ? usage : undefined,
        }),
      );
    }
    // A document with no path left costs its URL (its row says why); only a file system that
    // refuses writes ends the run.
    if (saveError !== undefined && !(saveError instanceof DocumentPlacementError)) {
      await frontier.fail(t, last.endedAt);
      throw saveError instanceof OutputWriteError ? saveError : new OutputWriteError(errText(saveError), this.o.outDir, { cause: saveError });
    }

    // A 3xx the transport left to us: its target is a request of its own, gated and spaced by
    // its own host's politeness like any other.
    if (result.redirectTo && !retry) await this.scheduleRedirect(url, result.redirectTo, (this.redirects.get(url)?.depth ?? 0) + 1, true);

    const sent = result.hops.some((h) => !h.blocked);
    // The host's interval runs from its last response, a rendered page's subresources included.
    const endedAt = Math.max(last.endedAt, result.hostEndedAt ?? 0);
    const notBefore = backoff ? endedAt + Math.min(retryAfterMs(last.headers['retry-after'], endedAt) ?? this.o.defaultBackoffMs, this.o.maxBackoffMs) : undefined;
    // +1: the transport's Date.now() rounds down; the interval never counts from before the end.
    await slot.release(endedAt + 1, notBefore);
    if (notBefore !== undefined) {
      this.host(host).backoffUntil = notBefore;
      if (retry) await frontier.fail(t, endedAt, { retry: true, notBefore });
      else await frontier.complete(t, endedAt, { notBefore });
    } else {
      await frontier.complete(t, endedAt, sent ? undefined : { notSent: true });
    }
  }

  /** When the last TDMRep request this job made ended (epoch ms), for the slot it was made in. */
  private tdmEndedAt: number | undefined;

  /**
   * The origin's TDMRep file (W3C TDM Reservation Protocol), read once per origin per run through
   * the transport (so gated, and audited as a row of kind `tdmrep`) in the slot of the URL in hand.
   * The document request after it keeps the host's interval from it, as after a robots.txt request.
   * @returns undefined when the signal aborted the wait for the slot (nothing was sent).
   */
  private async tdmRep(t: TakenItem, decision: Decision, crawlDelaySeconds: number | undefined, underOverride: boolean): Promise<TdmRepCopy | null | undefined> {
    this.tdmEndedAt = undefined;
    const origin = decision.origin;
    const known = this.tdmReps.get(origin);
    if (known !== undefined) return known;
    const url = `${origin}/.well-known/tdmrep.json`;
    // A request of its own to the host: it takes the host's slot, and the document request
    // after it takes the slot again, so it keeps the interval after this one.
    // Decided before the slot is taken: a check that refetched robots.txt then would wait for the
    // very slot this request holds.
    const own = await this.o.gate.check(url).catch(() => undefined);
    let slot;
    try {
      slot = await this.pacer.take(t.item.host, this.interval(t, crawlDelaySeconds, underOverride), this.o.signal, url);
    } catch {
      return undefined;
    }
    let result: Awaited<ReturnType<DocumentTransport['fetch']>>;
    try {
      this.o.audit.flush?.(t.item.host);
      result = await this.o.transport.fetch(url, { signal: this.o.signal, slotHeld: true, ...(own ? { decision: own } : {}) });
    } finally {
      // +1: Date.now() rounds down; the interval never counts from before the end.
      void slot.release(Date.now() + 1);
    }
    const last = result.hops[result.hops.length - 1]!;
    let file = null;
    if (last.status !== null && last.status >= 200 && last.status < 300 && !last.blocked) {
      file = parseTdmRep(new TextDecoder().decode(result.body));
    }
    // A file that could not be read says nothing yet: not kept, so the next URL of the origin
    // asks again, and meanwhile it reserves (fail closed, as an unreachable robots.txt does).
    const unreachable = last.error !== null ? last.error.code : last.status !== null && (last.status >= 500 || last.status === 429) ? last.status : undefined;
    const copy: TdmRepCopy = { url: last.url, file, ...(unreachable !== undefined ? { unreachable } : {}) };
    if (unreachable === undefined) this.tdmReps.set(origin, copy);
    for (let i = 0; i < result.hops.length; i++) {
      const hop = result.hops[i]!;
      const row = this.hopRow(hop, { kind: 'tdmrep', parentUrl: i === 0 ? t.item.url : result.hops[i - 1]!.url }, false, t.item.host, t, {
        retry: false,
        isLast: i === result.hops.length - 1,
        saved: undefined,
        bytes: i === result.hops.length - 1 ? result.body.byteLength : null,
        truncated: false,
        saveError: undefined,
      });
      // Not the URL's own row: it neither settles the URL nor counts as one.
      this.write({ ...row, final: false, settles: false, ...(file && i === result.hops.length - 1 && file.problems.length ? { error: file.problems.join('; ') } : {}) });
    }
    if (result.hops.some((h) => !h.blocked)) this.tdmEndedAt = last.endedAt;
    return copy;
  }

  /** The interval to keep before sending `t`: the frontier's (it drew the jitter), or for the
   *  host's first request of this run the floor; never below Crawl-delay or override. */
  private interval(t: TakenItem, crawlDelaySeconds: number | undefined, underOverride: boolean): { ms: number; reason: WaitReason } {
    let ms = t.intervalMs ?? this.o.minIntervalMs;
    let reason: WaitReason = t.waitReason ?? 'floor';
    const delayMs = (crawlDelaySeconds ?? 0) * 1000;
    if (delayMs > ms) [ms, reason] = [delayMs, 'crawl-delay'];
    if (underOverride && this.o.overrideIntervalMs > ms) [ms, reason] = [this.o.overrideIntervalMs, 'override'];
    return { ms: Math.ceil(ms), reason };
  }

  /** A Crawl-delay over the maximum: skip this URL and every URL queued for the host. */
  private async skipHost(t: TakenItem, decision: Decision, delaySeconds: number): Promise<void> {
    const { url, host } = t.item;
    const hs = this.host(host);
    hs.skippedBecause = `Crawl-delay ${delaySeconds} s is over the maximum ${this.o.maxCrawlDelaySeconds} s`;
    hs.crawlDelaySeconds = delaySeconds;
    const now = Date.now();
    const skip = (u: string, attempt: number) =>
      this.write({
        url: u,
        host,
        ...this.via(u),
        startMs: now,
        endMs: now,
        decision,
        outcome: 'skipped',
        reason: 'crawl-delay-too-long',
        error: hs.skippedBecause ?? null,
        final: true,
        attempt,
      });
    skip(url, t.item.attempt);
    const pending = await this.o.frontier.pending(host);
    for (const p of pending) skip(p.url, p.attempt);
    await this.o.frontier.remove(host, pending.map((p) => p.url));
    await this.o.frontier.complete(t, now, { notSent: true });
  }

  /** After a policy change: put every queued URL of the host to the new policy now; those it
   *  disallows are recorded as blocked (stamped with the new policy) and leave the queue. */
  private async reEvaluate(host: string): Promise<void> {
    const pending = await this.o.frontier.pending(host);
    // Not told by expect(): the host's queue, plus the URL in hand, is what is left of it.
    if (!this.expected) this.host(host).remaining = pending.length + 1;
    const removed: string[] = [];
    for (const p of pending) {
      const at = Date.now();
      const d = await this.o.gate.check(p.url);
      if (d.allowed) continue;
      this.write({ url: p.url, host, ...this.via(p.url), startMs: at, endMs: Date.now(), decision: d, outcome: 'blocked', final: true, attempt: p.attempt });
      removed.push(p.url);
    }
    await this.o.frontier.remove(host, removed);
  }

  // --- audit ---------------------------------------------------------------------------------

  private onPolicy(r: PolicyRecord): void {
    const snapshot = policySnapshot(r);
    if (snapshot) this.o.audit.recordPolicy(snapshot);
  }

  private onChange(c: PolicyChange): void {
    this.o.audit.recordPolicyChange({ runId: this.o.runId, origin: c.origin, oldSha256: c.oldSha256, newSha256: c.newSha256, at: c.at });
    this.policyChanges++;
    try {
      this.changedHosts.add(new URL(c.origin).host);
    } catch {
      // An origin the gate produced is always a URL; nothing to re-evaluate otherwise.
    }
  }

  /** Run an event handler; a failure (the audit cannot be written) stops the run. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.fatal ??= err;
    }
  }

  private hopRow(
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
    },
  ): RowParts {
    let outcome: AttemptOutcome;
    let reason: string = hop.decision.reason;
    if (hop.blocked) outcome = 'blocked';
    else if (hop.error) {
      outcome = 'error';
      reason = hop.error.code === 'AbortError' || this.o.signal?.aborted ? 'aborted' : 'network-error';
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
      waitReason: first ? t.waitReason : null,
      intervalMs: first ? t.intervalMs : null,
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

  /** How a frontier item came to be: from the list (`page`) or as a redirect target. */
  private via(url: string): { kind: AttemptRow['kind']; parentUrl: string | null } {
    const r = this.redirects.get(url);
    return r ? { kind: 'redirect', parentUrl: r.parent } : { kind: 'page', parentUrl: null };
  }

  /** `leased`: the 3xx came from `from` in this job and its host is still leased to us (so no
   *  other take can hand the target out while it is decided here). */
  private async scheduleRedirect(from: string, target: string, depth: number, leased = false): Promise<void> {
    if (depth > this.o.maxRedirects) return; // the 3xx row is the record; the chain stops here
    let u: URL;
    try {
      u = new URL(target);
    } catch {
      return;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
    u.hash = '';
    // A Location with user:password@ would fail in fetch (it refuses credentials in a URL) and
    // put them in the row: the target is requested, and recorded, without them.
    u.username = '';
    u.password = '';
    const href = u.href;
    if (this.redirects.has(href)) return;
    const added = await this.o.frontier.add([{ url: href, host: u.host }]);
    if (added === 0) return; // already in the list (or fetched): it is, or was, a request of its own
    this.redirects.set(href, { parent: from, depth });
    this.host(u.host).remaining++;
    // A target on the origin just decided is decided now from the cached policy: a disallowed one
    // sends nothing, so it must not wait out the host's interval in the queue to be marked blocked.
    if (leased && u.origin === safeOrigin(from)) {
      const at = Date.now();
      const d = await this.o.gate.check(href);
      if (d.allowed) return;
      this.write({ url: href, host: u.host, kind: 'redirect', parentUrl: from, startMs: at, endMs: Date.now(), decision: d, outcome: 'blocked', final: true, attempt: 1 });
      await this.o.frontier.remove(u.host, [href]);
    }
  }

  /** Build the row (one object literal: this runs for every attempt). */
  private row(p: RowParts): AttemptRow {
    const d = p.decision;
    return {
      runId: this.o.runId,
      url: p.url,
      host: p.host,
      startedAt: iso(p.startMs),
      endedAt: iso(p.endMs),
      outcome: p.outcome,
      status: p.status ?? null,
      bytes: p.bytes ?? null,
      contentSha256: p.contentSha256 ?? null,
      savedPath: p.savedPath ?? null,
      policySha256: d ? d.policy.sha256 : null,
      robotsUrl: d ? d.policy.robotsUrl : null,
      policyFetchedAt: d ? d.policy.fetchedAt : null,
      policyStatus: d ? d.policy.status : null,
      reason: p.reason ?? d?.reason ?? '',
      // A usage reservation is decided by a usage line or header, not by the access rule.
      ...(p.reason === 'usage-reserved' || (p.reason === undefined && d?.reason === 'usage-reserved')
        ? this.usage.decidingLine(p.usage ?? d?.usage)
        : { ruleLine: d?.rule?.line ?? null, rulePattern: d?.rule?.pattern ?? null }),
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
      usage: p.usage ?? null,
    };
  }

  /** Write a row (throws AuditWriteError: the run stops) and keep the counts. */
  private write(p: RowParts): void {
    this.o.audit.recordAttempt(this.row(p));
    this.attempts++;
    if (p.bytes) this.bytes += p.bytes;
    if (p.truncated) this.truncated++;
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
    if (p.status != null) {
      if (hs.firstAt === undefined || p.startMs < hs.firstAt) hs.firstAt = p.startMs;
      if (hs.lastAt === undefined || p.endMs > hs.lastAt) hs.lastAt = p.endMs;
    }
    this.noteInterval(p);
  }

  private noteInterval(p: RowParts): void {
    if (p.intervalMs == null || p.host === '') return;
    const hs = this.host(p.host);
    if (p.intervalMs > hs.maxIntervalMs) {
      hs.maxIntervalMs = p.intervalMs;
      hs.maxIntervalReason = p.waitReason ?? null;
    }
  }

  private host(host: string): HostStats {
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
        skippedBecause: undefined,
        backoffUntil: undefined,
        robotsUnreachable: false,
      };
      this.hostStats.set(host, h);
    }
    return h;
  }
}

/** `p`'s value, or undefined as soon as `signal` aborts (`p` runs on; its outcome is dropped). */
function unlessAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
