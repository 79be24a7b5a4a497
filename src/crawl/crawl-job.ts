// The crawl job: takes URLs from a Frontier (memory or Redis: it never knows which), puts each
// to the gate, keeps each host's politeness, fetches through a DocumentTransport (HTTP or
// browser), saves documents, and writes one audit row per attempt when it happens.
import type { AttemptRow } from '../audit/types.js';
import type { Decision, PolicyChange } from '../gate/types.js';
import { DocumentPlacementError, OutputWriteError, saveDocument } from './document-store.js';
import { LoopTurns, nextTurn, STEPS_PER_TURN } from './loop-turns.js';
import type { TakenItem, WaitReason } from '../politeness/types.js';
import { defaultLimiter, pacerFor, type Pacer } from '../politeness/pacer.js';
import type { Lease, PolicyRecord } from '../stores/types.js';
import { retryAfterMs } from '../politeness/retry-after.js';
import { UsageCheck, type TdmRepCopy } from './usage-check.js';
import type { DocumentTransport } from './types.js';
import { policySnapshot } from '../gate/policy-record.js';
import { AttemptLog, errText, hopRow, iso, type CrawlStats } from './attempt-log.js';
import { DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS, REQUEUE_PAST_MS, type CrawlJobOptions, type CrawlResult } from './job-options.js';
import { takeLoop } from './take-loop.js';
import { TdmRepReader } from './tdmrep-read.js';
import { HeldSlot } from './held-slot.js';
import { Redirects } from './redirects.js';
import { hostKeyOf } from '../fetcher/url.js';
import { RequestSlots } from './request-slots.js';

export type { CrawlJobOptions, CrawlResult } from './job-options.js';
export { FAILED_KEPT, type CrawlStats, type FailedUrl, type HostStats } from './attempt-log.js';

/**
 * One crawl: `expect()` the URLs added to the frontier, then `run()`. Listens to the gate's
 * 'policy' (texts into the audit) and 'policy-change' (change rows, queue re-evaluation) events
 * from its run row (`recordStart()`) to the end of `run()`: a robots.txt the gate fetched in
 * between (while sitemaps were read, say) stamps rows later from the gate's cache, with no new
 * event, and its text must be in the audit all the same. Every attempt gets its row before the
 * frontier is told the URL is done.
 */
export class CrawlJob {
  private readonly o: Required<Omit<CrawlJobOptions, 'signal' | 'userAgent' | 'purpose' | 'limiter' | 'concurrency' | 'settledUrls'>> & { signal: AbortSignal | undefined; userAgent: string | undefined };
  private readonly pacer: Pacer;
  private readonly changedHosts = new Set<string>();
  private readonly visited = new Set<string>();
  /** URLs handed back to the frontier once (their slot opened too late): until taken again. */
  private readonly handedBack = new Set<string>();
  private readonly redirects: Redirects;
  private readonly log: AttemptLog;
  private policyChanges = 0;
  private fatal: unknown;
  private readonly startedAt = Date.now();
  private minIntervalGuessMs = 2_000;
  private readonly usage: UsageCheck;
  /** TDMRep files read this run, per origin (under a purpose only). */
  private readonly tdmReps: TdmRepReader;
  /** --concurrency's requests in flight, when given (see CrawlJobOptions.concurrency). */
  private readonly requestSlots: RequestSlots | undefined;

  constructor(options: CrawlJobOptions) {
    this.o = {
      maxCrawlDelaySeconds: 60,
      clampCrawlDelay: false,
      overrideIntervalMs: 10_000,
      // The frontier's own floor, when the caller does not say (README's snippet does not).
      minIntervalMs: options.frontier.minIntervalMs ?? 0,
      maxRetries: 2,
      defaultBackoffMs: DEFAULT_BACKOFF_MS,
      maxBackoffMs: MAX_BACKOFF_MS,
      maxRedirects: 5,
      abortGraceMs: 2_000,
      runOptions: {},
      resumeOf: null,
      worker: null,
      // An option given as undefined means "the default", not undefined (`{ minIntervalMs: opts.x }`).
      ...definedOnly(options),
      signal: options.signal,
      userAgent: options.userAgent ?? options.gate.userAgent,
    };
    this.requestSlots = options.concurrency === undefined ? undefined : new RequestSlots(options.concurrency);
    const tokens = (options.gate as { productToken?: string | readonly string[] }).productToken;
    this.usage = new UsageCheck({ purpose: options.purpose, productTokens: tokens === undefined ? [] : typeof tokens === 'string' ? [tokens] : tokens });
    this.log = new AttemptLog(options.audit, options.runId, this.usage);
    this.pacer = pacerFor(options.limiter ?? options.gate.limiter ?? defaultLimiter());
    this.redirects = new Redirects(options.frontier, options.gate, this.log, this.o.maxRedirects, (t) => this.under(t), options.settledUrls);
    this.tdmReps = new TdmRepReader({ gate: options.gate, pacer: this.pacer, transport: options.transport, audit: options.audit, log: this.log, signal: options.signal });
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
    for (const { host } of urls) this.log.host(host).remaining++;
  }

  /** Hosts an earlier run left backed off (429/503, Retry-After), until when (ms since epoch):
   *  the ETA counts from then, as for a back-off of this run. Only hosts `expect()` was told of. */
  holdBackoffs(holds: Iterable<readonly [host: string, until: number]>): void {
    for (const [host, until] of holds) {
      const h = this.log.hostStats.get(host);
      if (h !== undefined && until > (h.backoffUntil ?? 0)) h.backoffUntil = until;
    }
  }

  /** Schedule redirect targets left unfollowed by an earlier run (`--resume`), so a kill between
   *  a 3xx and its target loses nothing. `depth`: hops from the list (default 1), so the chain's
   *  limit holds across runs. */
  async resumeRedirects(targets: readonly { url: string; parentUrl: string; depth?: number }[]): Promise<void> {
    for (const r of targets) await this.redirects.schedule(r.parentUrl, r.url, r.depth ?? 1);
  }

  /** Record an input line that is not a usable URL: a `skipped` row, reason `invalid-url` or
   *  `unsupported-scheme`. */
  recordInvalid(text: string, reason: string, message: string): void {
    this.recordStart();
    const now = Date.now();
    this.log.write({ url: text, host: '', startMs: now, endMs: now, outcome: 'skipped', reason, error: message, final: true });
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
        counts: { ...this.log.outcomes },
        error: failure === undefined ? null : errText(failure),
      });
    } catch (err) {
      // The audit failing at the end of a run that went well is the run's failure; after a
      // failure, that one is the one reported.
      if (failure === undefined) throw err;
    }
  }

  private async crawl(): Promise<CrawlResult> {
    const abandoned = await takeLoop({
      frontier: this.o.frontier,
      signal: this.o.signal,
      abortGraceMs: this.o.abortGraceMs,
      process: (t) => this.process(t),
      stopped: () => this.fatal !== undefined,
      fail: (err) => {
        this.fatal ??= err;
      },
    });
    if (this.fatal !== undefined) throw this.fatal;
    return { status: this.o.signal?.aborted ? 'interrupted' : 'completed', stats: this.stats(), abandoned };
  }

  stats(): CrawlStats {
    let etaMs = 0;
    const now = Date.now();
    for (const h of this.log.hostStats.values()) {
      if (h.remaining <= 0 || h.skippedBecause) continue;
      const interval = Math.max(h.maxIntervalMs, (h.crawlDelaySeconds ?? 0) * 1000, this.minIntervalGuessMs);
      // The host's next request waits for its slot: until its Retry-After, or one interval after
      // its last response (so the bound counts down between two requests instead of standing
      // still); a host not visited yet waits an interval after its robots.txt request (counting
      // down from it once it has been sent).
      const held = h.backoffUntil !== undefined ? Math.max(0, h.backoffUntil - now) : 0;
      const since = h.lastAt ?? h.robotsAt;
      const next = held > 0 ? held : since !== undefined ? Math.max(0, since + interval - now) : interval;
      etaMs = Math.max(etaMs, next + (h.remaining - 1) * interval);
    }
    return {
      startedAt: this.startedAt,
      outcomes: { ...this.log.outcomes },
      attempts: this.log.attempts,
      bytes: this.log.bytes,
      truncated: this.log.truncated,
      policyChanges: this.policyChanges,
      hosts: this.log.hostStats,
      etaMs,
      redirectsFound: this.redirects.size,
      redirectTargets: this.log.redirectTargets,
      failed: [...this.log.failed],
    };
  }

  // --- one URL -------------------------------------------------------------------------------

  /** One URL, in a request slot from its check to the end of its response (when the job has
   *  slots: see CrawlJobOptions.concurrency). */
  private process(t: TakenItem): Promise<void> {
    return this.requestSlots === undefined ? this.processUrl(t, noop) : this.requestSlots.hold((release) => this.processUrl(t, release));
  }

  /** `release()`: the URL's requests are over (its response is in hand). */
  private async processUrl(t: TakenItem, release: () => void): Promise<void> {
    const { frontier, gate } = this.o;
    const { url, host } = t.item;
    const handedBack = this.handedBack.delete(url);
    // Lost (Redis away): the URL counts as one of the list, as before the fleet recorded it.
    if (this.redirects.shared) await this.redirects.learn(url).catch(() => {});
    const checkedAt = Date.now();
    let decision: Decision;
    // The check may send this host's robots.txt request: the rows recorded so far go first, and
    // the host's stats exist to note when (onPolicy), also for a job not told its hosts (expect()).
    this.o.audit.flush?.(host);
    const hs = this.log.host(host);
    try {
      decision = await gate.check(url, this.under(t));
    } catch (err) {
      this.log.write({ url, host, ...this.via(url), startMs: checkedAt, endMs: Date.now(), outcome: 'error', reason: 'check-failed', error: errText(err), final: true, attempt: t.item.attempt });
      await frontier.fail(t, Date.now(), { notSent: true });
      return;
    }
    // A Crawl-delay over the maximum skips the host: every URL of it, allowed or not.
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
      await this.reEvaluate(host, t);
    }
    // The attempt starts once decided: a robots.txt fetch made by the check is not part of it,
    // so a policy-change boundary always falls before the attempts it governs.
    const decidedAt = Date.now();

    const crawlDelaySeconds = delay === undefined ? undefined : Math.min(delay, this.o.maxCrawlDelaySeconds);
    hs.crawlDelaySeconds = crawlDelaySeconds;
    const underOverride = await gate.isUnderOverride(host);
    await frontier.setHostPolicy(host, { crawlDelaySeconds, underOverride });

    if (!decision.allowed) {
      this.log.write({ url, host, ...this.via(url), startMs: decidedAt, endMs: Date.now(), decision, outcome: 'blocked', final: true, attempt: t.item.attempt, usage: decision.usage ?? null });
      await frontier.complete(t, Date.now(), { notSent: true });
      return;
    }

    let tdm: TdmRepCopy | null = null;
    if (this.usage.purpose !== undefined) {
      const read = await this.tdmReps.read(t, decision, this.interval(t, crawlDelaySeconds, underOverride), this.under(t)?.lease);
      if (read === undefined) {
        // Interrupted while waiting for the slot: nothing was sent; --resume tries the URL again.
        await frontier.fail(t, Date.now(), { notSent: true });
        return;
      }
      tdm = read.copy;
      const reserved = this.usage.reservedByTdmRep(url, tdm);
      if (reserved !== null) {
        const at = Date.now();
        this.log.write({ url, host, ...this.via(url), startMs: at, endMs: at, decision, outcome: 'blocked', reason: 'usage-reserved', final: true, attempt: t.item.attempt, usage: reserved });
        await frontier.complete(t, read.endedAt ?? at, read.endedAt === undefined ? { notSent: true } : undefined);
        return;
      }
    }

    // The frontier opened the slot under the interval known then; the limiter also knows what the
    // frontier does not: the robots.txt requests the check made (first load, refresh, a redirect
    // into this host), other doors on the same limiter, and a policy learned just now (a new
    // Crawl-delay, an override). Take the host's slot there under the full interval.
    // A slot that opens later than REQUEUE_PAST_MS is not waited for here: the worker would hold
    // one of the --concurrency slots all that while (a Crawl-delay learned from the robots.txt
    // the check just fetched) with other hosts ready. The URL goes back to the head of its
    // host's queue untried (same attempt, no row), the host held until the limiter said it
    // opens. Once only: taken again, its check may have fetched robots.txt anew (a short
    // --recheck-after), which would push the slot on each time; so it waits here then. It waits
    // here the first time too when the copy it was decided on expires within the interval
    // (--recheck-after shorter than it): the retake's check would fetch robots.txt again.
    const interval = this.interval(t, crawlDelaySeconds, underOverride);
    const waitHere = handedBack || Date.parse(decision.policy.expiresAt) - Date.now() < interval.ms;
    let slot;
    try {
      // An open slot of an in-process limiter is taken at once (no promise); else ask and wait.
      const now = this.under(t) === undefined && !this.o.signal?.aborted ? this.pacer.takeNow(host, interval) : undefined;
      const got = now ?? (await this.pacer.takeUnlessLater(host, interval, waitHere ? Infinity : REQUEUE_PAST_MS, this.o.signal, url, this.under(t)?.lease));
      if ('later' in got) {
        this.handedBack.add(url);
        await frontier.fail(t, Date.now(), { notSent: true, requeue: true, holdUntil: got.later });
        return;
      }
      slot = got;
    } catch {
      // Interrupted while waiting: nothing was sent; --resume tries the URL again.
      await frontier.fail(t, Date.now(), { notSent: true });
      return;
    }
    let result: Awaited<ReturnType<DocumentTransport['fetch']>>;
    const lease = this.under(t)?.lease;
    const held = new HeldSlot(slot, this.pacer, host, url, lease);
    try {
      // The crash promise: every row recorded before this request is durable before it is sent.
      this.o.audit.flush?.(host);
      // Known only when expect() gave each host's count: the URL in hand is its last one.
      const lastForHost = this.expected && this.log.host(host).remaining <= 1;
      result = await this.o.transport.fetch(url, { decision, signal: this.o.signal, slotHeld: true, lastForHost, releaseSlot: held.releaseEarly, ...(lease ? { lease } : {}) });
    } catch (err) {
      await held.releaseEarly(Date.now());
      throw err;
    }
    release();
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
    // A body cut short by a failure (timeout, reset, Ctrl-C) is no document: saved, it took the
    // URL's path, and the whole one fetched on --resume went to _conflicts. Its row keeps the
    // error and the octets received. (Cut at --max-page-bytes is no failure: saved, marked.)
    if (answered && usage!.keep && last.error === null) {
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
      this.log.write(
        hopRow(hop, i === 0 ? via : { kind: 'redirect', parentUrl: result.hops[i - 1]!.url }, i === 0, host, t, {
          retry,
          isLast,
          saved: isLast ? saved : undefined,
          bytes: isLast ? result.body.byteLength : null,
          truncated: isLast && result.truncated,
          saveError: isLast ? saveError : undefined,
          usage: isLast ? usage : undefined,
          interval,
        }, !!this.o.signal?.aborted),
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
    if (result.redirectTo && !retry) await this.redirects.schedule(url, result.redirectTo, this.redirects.depth(url) + 1, t);

    const sent = result.hops.some((h) => !h.blocked);
    // The host's interval runs from its last response, a rendered page's subresources included.
    const endedAt = Math.max(last.endedAt, result.hostEndedAt ?? 0);
    const notBefore = backoff ? endedAt + Math.min(retryAfterMs(last.headers['retry-after'], endedAt) ?? this.o.defaultBackoffMs, this.o.maxBackoffMs) : undefined;
    // +1: the transport's Date.now() rounds down; the interval never counts from before the end.
    await held.end(endedAt + 1, notBefore, this.o.signal);
    if (notBefore !== undefined) {
      this.log.host(host).backoffUntil = notBefore;
      if (retry) await frontier.fail(t, endedAt, { retry: true, notBefore });
      else await frontier.complete(t, endedAt, { notBefore });
    } else {
      await frontier.complete(t, endedAt, sent ? undefined : { notSent: true });
    }
  }

  /** For a frontier whose leases are the limiter's (a fleet's): `t`'s requests go under its lease,
   *  robots.txt ones included, since a second slot on the host would wait for the lease held. */
  private under(t: TakenItem): { lease: Lease } | undefined {
    return this.o.frontier.limiterLeases ? { lease: t.lease } : undefined;
  }

  /** The interval to keep before sending `t`: the frontier's (it drew the jitter), or for the
   *  host's first request of this run the floor; never below Crawl-delay or override. After a
   *  back-off the frontier's figure is the back-off's length, which is no interval: the limiter
   *  keeps the back-off itself (its notBefore), and an interval asked for is what the lease is
   *  granted under, which the host's next request waits too (a Retry-After of an hour held the
   *  page after the retry another hour). So the floor then, as for a first request. */
  private interval(t: TakenItem, crawlDelaySeconds: number | undefined, underOverride: boolean): { ms: number; reason: WaitReason } {
    const backoff = t.waitReason === 'backoff';
    let ms = backoff ? this.o.minIntervalMs : (t.intervalMs ?? this.o.minIntervalMs);
    let reason: WaitReason = backoff ? 'floor' : (t.waitReason ?? 'floor');
    const delayMs = (crawlDelaySeconds ?? 0) * 1000;
    if (delayMs > ms) [ms, reason] = [delayMs, 'crawl-delay'];
    if (underOverride && this.o.overrideIntervalMs > ms) [ms, reason] = [this.o.overrideIntervalMs, 'override'];
    return { ms: Math.ceil(ms), reason };
  }

  /** A Crawl-delay over the maximum: skip this URL and every URL queued for the host. */
  private async skipHost(t: TakenItem, decision: Decision, delaySeconds: number): Promise<void> {
    const { url, host } = t.item;
    const hs = this.log.host(host);
    hs.skippedBecause = `Crawl-delay ${delaySeconds} s is over the maximum ${this.o.maxCrawlDelaySeconds} s`;
    hs.crawlDelaySeconds = delaySeconds;
    const now = Date.now();
    const skip = (u: string, attempt: number) =>
      this.log.write({
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
    const turns = new LoopTurns(STEPS_PER_TURN);
    for (const p of pending) {
      if (turns.due()) await nextTurn();
      skip(p.url, p.attempt);
    }
    await this.removeQueued(host, pending.map((p) => p.url));
    await this.o.frontier.complete(t, now, { notSent: true });
  }

  /** After a policy change: put every queued URL of the host to the new policy now; those it
   *  disallows are recorded as blocked (stamped with the new policy) and leave the queue. */
  private async reEvaluate(host: string, t: TakenItem): Promise<void> {
    const pending = await this.o.frontier.pending(host);
    // Not told by expect(): the host's queue, plus the URL in hand, is what is left of it.
    if (!this.expected) this.log.host(host).remaining = pending.length + 1;
    const removed: string[] = [];
    const turns = new LoopTurns(STEPS_PER_TURN);
    for (const p of pending) {
      if (turns.due()) await nextTurn();
      const at = Date.now();
      const d = await this.o.gate.check(p.url, this.under(t));
      if (d.allowed) continue;
      this.log.write({ url: p.url, host, ...this.via(p.url), startMs: at, endMs: Date.now(), decision: d, outcome: 'blocked', final: true, attempt: p.attempt });
      removed.push(p.url);
    }
    await this.removeQueued(host, removed);
  }

  /** Take URLs out of the host's queue; one handed back (its slot opened too late) is forgotten. */
  private async removeQueued(host: string, urls: string[]): Promise<void> {
    for (const u of urls) this.handedBack.delete(u);
    await this.o.frontier.remove(host, urls);
  }

  // --- audit ---------------------------------------------------------------------------------

  private onPolicy(r: PolicyRecord): void {
    const snapshot = policySnapshot(r);
    if (snapshot) this.o.audit.recordPolicy(snapshot);
    // For the ETA only: a host of the run whose robots.txt was just fetched.
    const hs = this.log.hostStats.get(hostKeyOf(r.origin));
    if (hs && (hs.robotsAt === undefined || r.fetchedAt > hs.robotsAt)) hs.robotsAt = r.fetchedAt;
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
  /** How a frontier item came to be: from the list (`page`) or as a redirect target. */
  private via(url: string): { kind: AttemptRow['kind']; parentUrl: string | null } {
    return this.redirects.via(url);
  }
}

const noop = () => {};

/** `o` without the members whose value is undefined (optional ones: a required one never is). */
function definedOnly<T extends object>(o: T): T {
  const out = {} as T;
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
