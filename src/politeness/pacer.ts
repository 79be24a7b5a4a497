// Taking a host's slot from a RateLimiter: the one place every door (gate.fetch, the interceptor,
// robots.txt requests, the crawl) waits for its turn. In this process the waiters of one host
// queue FIFO and only the head asks the limiter, so a host with a hundred queued requests costs
// one timer, and a release here wakes the next waiter at once instead of at its next poll.
import diagnostics_channel from 'node:diagnostics_channel';
import { MemoryRateLimiter } from '../stores/memory-rate-limiter.js';
import type { AcquireOptions, Lease, RateLimiter } from '../stores/types.js';
import type { Interval } from './interval.js';
import type { WaitReason } from './types.js';

/** Published on `robots-gate:wait` each time a request waited for its host's slot. */
export interface WaitEvent {
  /** The politeness key: `URL.host` (host name, plus the port when not the default). */
  readonly host: string;
  /** The interval that held the request (ms): the one asked for, the longer one the limiter
   *  remembered (`remembered`), or with `backoff` the back-off's length (from the end of the 429
   *  or 503 that asked for it to the time it named). */
  readonly intervalMs: number;
  /** The largest term: `backoff` when a 429/503 back-off seen here held the host longer. When
   *  `remembered`, the largest term of the interval asked for: the limiter keeps the interval the
   *  host's last lease was granted under, not the term it came from. */
  readonly reason: WaitReason;
  /** Present (true) when what held the request was the interval the host's last lease was granted
   *  under (what its holder knew: a Crawl-delay or override this door has not learned, a floor
   *  with more jitter), longer than the one asked for; see RateLimiter. */
  readonly remembered?: true;
  /** How long the request waited (ms). */
  readonly waitedMs: number;
  /** The URL that waited, when the door knows it. */
  readonly url?: string;
}
export const waitChannel = diagnostics_channel.channel('robots-gate:wait');

/** A slot held: release it when the response ended. */
export interface Slot {
  readonly lease: Lease;
  /** ms waited for the slot. */
  readonly waitedMs: number;
  /**
   * @param endedAt when the response ended (ms since epoch).
   * @param notBefore no new request to the host before this (ms since epoch): a 429/503 back-off.
   */
  release(endedAt: number, notBefore?: number): Promise<void>;
}

/** What take() needs of a signal: an AbortSignal, or anything as light that acts like one (a door
 *  that makes one per request must not pay for an AbortController each time). */
export interface Cancellation {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * `p`'s outcome, or, as soon as `signal` aborts (already aborted included), `aborted()`'s value or
 * throw. `p` runs on either way; once aborted its outcome is dropped (a rejection is not left unhandled).
 * For waits that a caller may give up on: a robots.txt load shared with other callers, a frontier's take.
 */
export function unlessAborted<T, U>(p: Promise<T>, signal: Cancellation, aborted: () => U): Promise<T | U> {
  if (signal.aborted) {
    p.catch(() => {});
    return new Promise<U>((resolve) => resolve(aborted()));
  }
  return new Promise<T | U>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => {});
      try {
        resolve(aborted());
      } catch (err) {
        reject(err);
      }
    };
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

interface Waiter {
  readonly interval: Interval;
  readonly options: AcquireOptions | undefined;
  readonly url: string | undefined;
  readonly signal: Cancellation | undefined;
  readonly since: number;
  resolve(slot: Slot): void;
  reject(err: unknown): void;
  done: boolean;
  /** Refused at least once, or queued behind another: it really waited (not just a round trip). */
  waited: boolean;
  /** The longest remembered interval a refusal named (ms; 0 none): see AcquireResult. */
  heldMs: number;
}

interface HostQueue {
  waiters: Waiter[];
  /** Wakes the head's sleep early (a release here, or the head aborted). */
  wake: (() => void) | undefined;
}

const MAX_TIMER_MS = 2_147_483_647;
const RELEASED: Promise<void> = Promise.resolve();

/** Let a slot's release run on, a failure (a store's) not left unhandled. An in-memory release is
 *  over already and cannot fail: a `catch` on it would cost a promise and a tick per request. */
export function releasing(p: Promise<void>): void {
  if (p !== RELEASED) p.catch(() => {});
}
const ENDS_ONLY: AcquireOptions = { endOnly: true };
/** claimSent() waits out an end stamped this far ahead (ms), this many times at most. */
const CLAIM_WAIT_MS = 5;
const CLAIM_TRIES = 3;
/** A lease never released (its holder hung or died) stops counting after this (ms). */
export const DEFAULT_LEASE_MS = 120_000;

export class Pacer {
  readonly #queues = new Map<string, HostQueue>();
  /** Back-offs released here, by host: to say `backoff` when one is what a waiter waits for, and
   *  how long it was (`ms`, from the response that set it to `until`). */
  readonly #backoffs = new Map<string, { readonly until: number; readonly ms: number }>();

  constructor(
    readonly limiter: RateLimiter,
    readonly leaseMs: number = DEFAULT_LEASE_MS,
  ) {}

  /**
   * Wait for `host`'s slot: no request to it in flight (anywhere the limiter reaches) and
   * `interval.ms` since its last response ended, later after a back-off. FIFO per host here.
   * @param within the host's lease the caller holds on this limiter (a fleet frontier's take):
   *   the request goes under it (see RateLimiter.tryAcquire), outside the FIFO, whose waiters
   *   may be waiting for that very lease.
   * @param options `endOnly`: the slot sends nothing, it only moves the host's last end (see
   *   AcquireOptions): it waits only for a request in flight and a back-off.
   * @throws (rejects) the signal's reason when `signal` aborts first: nothing is held then.
   */
  take(host: string, interval: Interval, signal?: Cancellation, url?: string, within?: Lease, options?: AcquireOptions): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (within !== undefined) return this.#takeWithin(host, interval, signal, url, within, options);
    return new Promise<Slot>((resolve, reject) => {
      const w: Waiter = { interval, options, url, signal, since: Date.now(), resolve, reject, done: false, waited: false, heldMs: 0 };
      let q = this.#queues.get(host);
      if (q === undefined) {
        q = { waiters: [w], wake: undefined };
        this.#queues.set(host, q);
        void this.#pump(host, q);
      } else {
        w.waited = true;
        q.waiters.push(w);
      }
      if (signal) {
        const onAbort = () => {
          if (w.done) return;
          w.done = true;
          reject(signal.reason);
          if (q!.waiters[0] === w) q!.wake?.();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = w.resolve;
        const fail = w.reject;
        w.resolve = (s) => {
          signal.removeEventListener('abort', onAbort);
          settle(s);
        };
        w.reject = (e) => {
          signal.removeEventListener('abort', onAbort);
          fail(e);
        };
      }
    });
  }

  /**
   * `take()`, unless the host's slot will not open within `deferPastMs`: then nothing is held
   * and the answer is when it opens (`later`, ms since epoch, the limiter's `retryAt`), so a
   * caller with other work (a crawl worker, whose frontier can hand it another host) need not sit
   * out the wait. Decided by one ask of the limiter; a host with waiters queued here, or a slot
   * that opens within `deferPastMs`, is waited for as by `take()`, so the limiter stays the floor.
   * @throws (rejects) the signal's reason when `signal` aborts first, as `take()`.
   */
  async takeUnlessLater(host: string, interval: Interval, deferPastMs: number, signal?: Cancellation, url?: string, within?: Lease): Promise<Slot | { readonly later: number }> {
    if (signal?.aborted) throw signal.reason;
    if (within === undefined && this.#queues.has(host)) return this.take(host, interval, signal, url, within);
    const r = await this.limiter.tryAcquire(host, interval.ms, this.leaseMs, within);
    if (r.ok) {
      const lease = r.lease;
      if (signal?.aborted) {
        await this.limiter.release(lease, Date.now()).catch(() => {});
        throw signal.reason;
      }
      return { lease, waitedMs: 0, release: (endedAt, notBefore) => this.#release(lease, endedAt, notBefore) };
    }
    if (r.retryAt - Date.now() > deferPastMs) return { later: r.retryAt };
    return this.take(host, interval, signal, url, within);
  }

  /**
   * The slot at once, without a wait or a promise, when the host has no waiter here and an
   * in-process limiter grants it now; undefined otherwise (then take()).
   */
  takeNow(host: string, interval: Interval): Slot | undefined {
    const limiter = this.limiter;
    if (!(limiter instanceof MemoryRateLimiter) || this.#queues.has(host)) return undefined;
    const r = limiter.tryAcquireSync(host, interval.ms, this.leaseMs);
    if (!r.ok) return undefined;
    const lease = r.lease;
    return {
      lease,
      waitedMs: 0,
      // In memory the release is done at once: no promise to wait for, as none was to take it.
      release: (endedAt, notBefore) => {
        this.#noteBackoff(host, endedAt, notBefore);
        limiter.releaseSync(lease, endedAt, notBefore);
        this.#queues.get(host)?.wake?.();
        return RELEASED;
      },
    };
  }

  /**
   * Count a response that ended at `endedAt` (ms since epoch) before this process started
   * (read back from an earlier run), so the host's first request now keeps its interval.
   * @param notBefore no request to the host before this (ms since epoch), whatever interval it
   *   asks for: `endedAt` + the interval the earlier run kept (its Crawl-delay), which this run's
   *   first request (robots.txt) cannot know yet.
   */
  async seed(host: string, endedAt: number, notBefore?: number): Promise<void> {
    // endOnly: a seed sends nothing, so it must not replace the interval the host's last holder
    // knew (a gate in this process, another process of the fleet) with its 0.
    const r = await this.limiter.tryAcquire(host, 0, this.leaseMs, undefined, ENDS_ONLY);
    if (r.ok) await this.limiter.release(r.lease, endedAt, notBefore);
  }

  /**
   * The slot of a request already under way that no take() let go: a download Chromium carries on
   * from a navigation whose own end has been counted. Outside the FIFO, for the request is not
   * asking leave; held only when nothing else holds the host (then undefined: the holder's end
   * counts, the overlap has happened). endOnly: it replaces no interval. The last end is stamped
   * a millisecond late (Date.now() rounds down), which a claim just after it waits out.
   */
  async claimSent(host: string): Promise<Slot | undefined> {
    for (let tries = 0; ; tries++) {
      const r = await this.limiter.tryAcquire(host, 0, this.leaseMs, undefined, ENDS_ONLY);
      if (r.ok) {
        const lease = r.lease;
        return { lease, waitedMs: 0, release: (endedAt, notBefore) => this.#release(lease, endedAt, notBefore) };
      }
      const ms = r.retryAt - Date.now();
      if (tries >= CLAIM_TRIES || ms > CLAIM_WAIT_MS) return undefined;
      await sleepUntil(r.retryAt, undefined);
    }
  }

  async #takeWithin(host: string, interval: Interval, signal: Cancellation | undefined, url: string | undefined, within: Lease, options: AcquireOptions | undefined): Promise<Slot> {
    const since = Date.now();
    let waited = false;
    let heldMs = 0;
    for (;;) {
      const r = await this.limiter.tryAcquire(host, interval.ms, this.leaseMs, within, options);
      if (r.ok) {
        const lease = r.lease;
        if (signal?.aborted) {
          await this.limiter.release(lease, Date.now()).catch(() => {});
          throw signal.reason;
        }
        const waitedMs = Date.now() - since;
        if (waited) this.#publishWait(host, interval, since, waitedMs, url, heldMs);
        return { lease, waitedMs, release: (endedAt, notBefore) => this.#release(lease, endedAt, notBefore) };
      }
      waited = true;
      heldMs = Math.max(heldMs, r.heldIntervalMs ?? 0);
      await sleepUntil(r.retryAt, signal);
    }
  }

  #publishWait(host: string, interval: Interval, since: number, waitedMs: number, url: string | undefined, heldMs: number): void {
    if (!waitChannel.hasSubscribers) return;
    const b = this.#backoffs.get(host);
    const backoff = b !== undefined && b.until > since;
    const reason: WaitReason = backoff ? 'backoff' : interval.reason;
    // A back-off seen here outranks it: the limiter named the remembered interval only when
    // no back-off set the time, but one released here may have come in since.
    const remembered = !backoff && heldMs > interval.ms;
    const ev: WaitEvent = {
      host,
      intervalMs: backoff ? b.ms : remembered ? heldMs : interval.ms,
      reason,
      waitedMs,
      ...(remembered ? { remembered: true as const } : {}),
      ...(url !== undefined ? { url } : {}),
    };
    waitChannel.publish(ev);
  }

  async #pump(host: string, q: HostQueue): Promise<void> {
    while (q.waiters.length > 0) {
      const w = q.waiters[0]!;
      if (w.done) {
        q.waiters.shift();
        continue;
      }
      let r;
      try {
        r = await this.limiter.tryAcquire(host, w.interval.ms, this.leaseMs, undefined, w.options);
      } catch (err) {
        q.waiters.shift();
        if (!w.done) {
          w.done = true;
          w.reject(err);
        }
        continue;
      }
      if (r.ok) {
        if (w.done) {
          // Aborted while the limiter answered: give the slot back untouched.
          await this.limiter.release(r.lease, Date.now()).catch(() => {});
          continue;
        }
        q.waiters.shift();
        w.done = true;
        const waitedMs = Date.now() - w.since;
        if (w.waited) this.#publishWait(host, w.interval, w.since, waitedMs, w.url, w.heldMs);
        const lease = r.lease;
        const slot: Slot = { lease, waitedMs, release: (endedAt, notBefore) => this.#release(lease, endedAt, notBefore) };
        w.resolve(slot);
        // The next waiter asks once this lease is released (wake), or at the limiter's retryAt.
        continue;
      }
      if (w.done) continue;
      w.waited = true;
      if (r.heldIntervalMs !== undefined && r.heldIntervalMs > w.heldMs) w.heldMs = r.heldIntervalMs;
      const ms = Math.min(Math.max(0, r.retryAt - Date.now()), MAX_TIMER_MS);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          q.wake = undefined;
          resolve();
        }
        q.wake = done;
      });
    }
    this.#queues.delete(host);
  }

  #noteBackoff(host: string, endedAt: number, notBefore: number | undefined): void {
    if (notBefore !== undefined) this.#backoffs.set(host, { until: notBefore, ms: Math.max(0, notBefore - endedAt) });
    else if (this.#backoffs.size !== 0 && (this.#backoffs.get(host)?.until ?? Infinity) <= endedAt) this.#backoffs.delete(host);
  }

  async #release(lease: Lease, endedAt: number, notBefore?: number): Promise<void> {
    const host = lease.host;
    this.#noteBackoff(host, endedAt, notBefore);
    try {
      await this.limiter.release(lease, endedAt, notBefore);
    } finally {
      this.#queues.get(host)?.wake?.();
    }
  }
}

/** Resolve at `at` (ms since epoch; a timer's longest, ~24.8 days, at most), or reject with the
 *  signal's reason when it aborts first. */
export function sleepUntil(at: number, signal: Cancellation | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const pacers = new WeakMap<RateLimiter, Pacer>();

/** The one Pacer of `limiter` in this process: doors sharing a limiter share its FIFO queues. */
export function pacerFor(limiter: RateLimiter): Pacer {
  let p = pacers.get(limiter);
  if (p === undefined) {
    p = new Pacer(limiter);
    pacers.set(limiter, p);
  }
  return p;
}

let processLimiter: MemoryRateLimiter | undefined;

/** The limiter every gate and crawl in this process uses unless given one: two gates (or a gate
 *  and a crawl) in one process then keep one clock per host. */
export function defaultLimiter(): RateLimiter {
  return (processLimiter ??= new MemoryRateLimiter());
}
