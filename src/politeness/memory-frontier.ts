// The in-process frontier: a FIFO queue per host, one TimerHeap for all hosts, a global
// concurrency limit, one request in flight per host, and each host's interval measured from the
// end of its previous response.
import type { Lease } from '../stores/types.js';
import { hostInterval, type IntervalTerms } from './interval.js';
import { TimerHeap } from './timer-heap.js';
import type {
  FailOptions,
  Frontier,
  FrontierCounts,
  FrontierItem,
  FrontierOptions,
  HostPolicy,
  ReleaseOptions,
  SeedHold,
  TakeResult,
  TakenItem,
  WaitReason,
} from './types.js';

interface HostState {
  /** Queued URLs; `head` is the next one (the array is compacted when half consumed). */
  queue: string[];
  head: number;
  /** Attempt numbers of retried URLs only (most URLs are tried once). */
  attempts: Map<string, number> | undefined;
  policy: HostPolicy;
  /** The lease token in flight, or undefined when the host is free. */
  busy: string | undefined;
  /** When the previous response ended (ms), undefined before the first request. */
  lastEndedAt: number | undefined;
  /** Retry-After back-off, or an earlier run's hold (seedHost): no request before this time (ms). */
  notBefore: number;
  /** What `notBefore` came from: `backoff`, or the earlier run's interval term it was seeded with. */
  notBeforeReason: WaitReason;
  /** A requeue's hold (fail's `holdUntil`): not offered before this time (ms), which is no part
   *  of the interval a take reports. */
  holdUntil: number;
  /** 1 to 1 + jitter, drawn at each release. */
  jitterFactor: number;
  /** Bumped each time the host is (re)scheduled; heap entries with another version are stale. */
  version: number;
}

const queued = (h: HostState) => h.queue.length - h.head;

/** An in-memory Frontier. Not shared between processes (see the Redis frontier for a fleet). */
export class MemoryFrontier implements Frontier {
  private readonly hosts = new Map<string, HostState>();
  private readonly seen = new Set<string>();
  private readonly heap = new TimerHeap();
  /** Hosts with nothing queued or in flight, by when their interval runs out: their state is
   *  dropped then, so a broad crawl holds no record for a host it has finished. Until then a URL
   *  added for the host (a redirect into it) still waits out the interval here. */
  private readonly idle = new TimerHeap();
  private readonly terms: IntervalTerms;
  get minIntervalMs(): number {
    return this.terms.minIntervalMs;
  }
  private readonly jitter: number;
  private readonly concurrency: number;
  private readonly random: () => number;
  private inFlight = 0;
  private queuedTotal = 0;
  private doneTotal = 0;
  private tokens = 0;

  constructor(options: FrontierOptions = {}) {
    this.terms = {
      minIntervalMs: options.minIntervalMs ?? 2_000,
      overrideIntervalMs: options.overrideIntervalMs ?? 10_000,
    };
    this.jitter = options.jitter ?? 0.2;
    this.concurrency = options.concurrency ?? 16;
    this.random = options.random ?? Math.random;
    if (!(this.concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${options.concurrency}`);
  }

  async add(items: readonly { url: string; host: string }[]): Promise<number> {
    return this.addSync(items);
  }

  /** Synchronous `add`, for callers that hold a MemoryFrontier (benchmarks, tests). */
  addSync(items: readonly { url: string; host: string }[]): number {
    let added = 0;
    for (const { url, host } of items) {
      if (this.seen.has(url)) continue;
      this.seen.add(url);
      const h = this.hostState(host);
      const wasEmpty = queued(h) === 0;
      h.queue.push(url);
      added++;
      this.queuedTotal++;
      if (wasEmpty && h.busy === undefined) this.schedule(host, h);
    }
    return added;
  }

  /** A host's state, created empty on first use. */
  private hostState(host: string): HostState {
    let h = this.hosts.get(host);
    if (!h) {
      h = {
        queue: [],
        head: 0,
        attempts: undefined,
        policy: {},
        busy: undefined,
        lastEndedAt: undefined,
        notBefore: 0,
        notBeforeReason: 'backoff',
        holdUntil: 0,
        jitterFactor: 1,
        version: 0,
      };
      this.hosts.set(host, h);
    }
    return h;
  }

  seedHost(host: string, lastEndedAt: number, intervalMs: number | null, hold?: SeedHold): void {
    const h = this.hostState(host);
    let changed = false;
    // The hold is kept whatever end is known: a later seed (this run's sitemap requests) does
    // not shorten a back-off the earlier run was under.
    if (hold !== undefined && hold.until > h.notBefore) {
      h.notBefore = hold.until;
      h.notBeforeReason = hold.reason;
      changed = true;
    }
    if (h.lastEndedAt === undefined || h.lastEndedAt < lastEndedAt) {
      h.lastEndedAt = lastEndedAt;
      // The floor's jitter as it was drawn then (within its bounds); a Crawl-delay or override
      // interval comes back with the host's policy, which the crawl sets before sending.
      const floor = this.terms.minIntervalMs;
      h.jitterFactor = intervalMs !== null && floor > 0 ? Math.min(Math.max(intervalMs / floor, 1), 1 + this.jitter) : 1;
      changed = true;
    }
    if (changed && h.busy === undefined && queued(h) > 0) this.schedule(host, h);
  }

  async take(now: number = Date.now()): Promise<TakeResult> {
    return this.takeSync(now);
  }

  /** Synchronous `take`. */
  takeSync(now: number = Date.now()): TakeResult {
    this.dropIdle(now);
    if (this.inFlight >= this.concurrency) return { kind: 'wait', retryAt: null };
    const heap = this.heap;
    while (heap.size > 0) {
      const host = heap.peekHost()!;
      const h = this.hosts.get(host);
      if (!h || h.version !== heap.peekVersion() || h.busy !== undefined || queued(h) === 0) {
        heap.pop();
        continue;
      }
      const due = heap.peekTime()!;
      if (due > now) return { kind: 'wait', retryAt: due };
      heap.pop();
      const url = h.queue[h.head]!;
      h.queue[h.head++] = '';
      if (h.head > 32 && h.head * 2 > h.queue.length) {
        h.queue = h.queue.slice(h.head);
        h.head = 0;
      }
      this.queuedTotal--;
      const attempt = h.attempts?.get(url) ?? 1;
      const token = String(++this.tokens);
      h.busy = token;
      this.inFlight++;
      const lease: Lease = { host, token, grantedAt: now };
      if (h.lastEndedAt === undefined) {
        return { kind: 'item', item: { url, host, attempt }, lease, intervalMs: null, waitReason: null };
      }
      const interval = hostInterval(h.policy, this.terms, h.jitterFactor);
      // Held past the interval: by a back-off, or by what an earlier run kept (seedHost).
      const held = h.notBefore > h.lastEndedAt + interval.ms;
      return {
        kind: 'item',
        item: { url, host, attempt },
        lease,
        intervalMs: held ? h.notBefore - h.lastEndedAt : interval.ms,
        waitReason: held ? h.notBeforeReason : interval.reason,
      };
    }
    return this.inFlight > 0 ? { kind: 'wait', retryAt: null } : { kind: 'drained' };
  }

  async complete(taken: TakenItem, endedAt: number, options?: ReleaseOptions): Promise<void> {
    this.release(taken, endedAt, options, false);
  }

  async fail(taken: TakenItem, endedAt: number, options?: FailOptions): Promise<void> {
    this.release(taken, endedAt, options, options?.retry === true);
  }

  /** Synchronous `complete` / `fail`. */
  release(taken: TakenItem, endedAt: number, options: FailOptions | undefined, retry: boolean): void {
    const { host, token } = taken.lease;
    const h = this.hosts.get(host);
    if (!h || h.busy !== token) return; // a stale or doubled release: the host is not ours to free
    h.busy = undefined;
    this.inFlight--;
    if (!options?.notSent) {
      h.lastEndedAt = endedAt;
      h.jitterFactor = 1 + this.random() * this.jitter;
    }
    if (options?.notBefore !== undefined && options.notBefore > h.notBefore) {
      h.notBefore = options.notBefore;
      h.notBeforeReason = 'backoff';
    }
    if (options?.holdUntil !== undefined && options.holdUntil > h.holdUntil) h.holdUntil = options.holdUntil;
    const { url, attempt } = taken.item;
    const requeue = !retry && options?.requeue === true;
    if (retry || requeue) {
      if (h.head > 0) h.queue[--h.head] = url;
      else h.queue.unshift(url);
      // A requeued URL was not tried: the same attempt (its entry stays as the take left it).
      if (retry) (h.attempts ??= new Map()).set(url, attempt + 1);
      else if (attempt > 1) (h.attempts ??= new Map()).set(url, attempt);
      this.queuedTotal++;
    } else {
      h.attempts?.delete(url);
      this.doneTotal++;
    }
    if (queued(h) > 0) this.schedule(host, h);
    else this.idle.push(this.readyAt(h), host, ++h.version);
  }

  /** How many hosts' records are held (queued, in flight, or still inside their interval). */
  get hostsHeld(): number {
    return this.hosts.size;
  }

  /** Drop the records of idle hosts whose interval has run out by `now`. An entry whose host was
   *  scheduled since (a URL added) has another version and is skipped. */
  private dropIdle(now: number): void {
    const idle = this.idle;
    while (idle.size > 0 && idle.peekTime()! <= now) {
      const host = idle.peekHost()!;
      const version = idle.peekVersion();
      idle.pop();
      const h = this.hosts.get(host);
      if (h && h.version === version && h.busy === undefined && queued(h) === 0) this.hosts.delete(host);
    }
  }

  async setHostPolicy(host: string, policy: HostPolicy): Promise<void> {
    const h = this.hosts.get(host);
    if (!h) return;
    const before = h.policy;
    if (before.crawlDelaySeconds === policy.crawlDelaySeconds && !!before.underOverride === !!policy.underOverride) return;
    h.policy = { ...policy };
    if (h.busy === undefined && queued(h) > 0) this.schedule(host, h);
  }

  async pending(host: string): Promise<FrontierItem[]> {
    const h = this.hosts.get(host);
    if (!h) return [];
    const out: FrontierItem[] = [];
    for (let i = h.head; i < h.queue.length; i++) {
      const url = h.queue[i]!;
      out.push({ url, host, attempt: h.attempts?.get(url) ?? 1 });
    }
    return out;
  }

  async remove(host: string, urls: readonly string[]): Promise<number> {
    const h = this.hosts.get(host);
    if (!h || urls.length === 0) return 0;
    const drop = new Set(urls);
    const kept: string[] = [];
    let removed = 0;
    for (let i = h.head; i < h.queue.length; i++) {
      const url = h.queue[i]!;
      if (drop.has(url)) {
        removed++;
        h.attempts?.delete(url);
      } else kept.push(url);
    }
    h.queue = kept;
    h.head = 0;
    this.queuedTotal -= removed;
    this.doneTotal += removed;
    return removed;
  }

  async counts(now: number = Date.now()): Promise<FrontierCounts> {
    let hosts = 0;
    let hostsWaiting = 0;
    for (const h of this.hosts.values()) {
      if (queued(h) === 0) continue;
      hosts++;
      if (h.busy === undefined && this.readyAt(h) > now) hostsWaiting++;
    }
    return { queued: this.queuedTotal, inFlight: this.inFlight, done: this.doneTotal, hosts, hostsWaiting };
  }

  async isDrained(): Promise<boolean> {
    return this.queuedTotal === 0 && this.inFlight === 0;
  }

  async close(): Promise<void> {}

  /** When the host may next be sent (ms since epoch). */
  private readyAt(h: HostState): number {
    const held = Math.max(h.notBefore, h.holdUntil);
    if (h.lastEndedAt === undefined) return held;
    return Math.max(h.lastEndedAt + hostInterval(h.policy, this.terms, h.jitterFactor).ms, held);
  }

  private schedule(host: string, h: HostState): void {
    h.version++;
    this.heap.push(this.readyAt(h), host, h.version);
  }
}
