// A host's slot for a Crawlee request, taken from the RateLimiter every other door uses (memory,
// or Redis for several processes), so the interval holds whatever the crawler's concurrency:
// at most one request in flight per host, and the interval between the end of one response and
// the start of the next. One function, so that the gate's own spacing can replace it.
import type { Decision } from '../gate/types.js';
import { hostInterval } from '../politeness/interval.js';
import type { WaitReason } from '../politeness/types.js';
import type { RateLimiter } from '../stores/types.js';

/** A taken slot: give it back once the response has ended. */
export interface Slot {
  /** The interval (ms) this request was spaced by. */
  readonly intervalMs: number;
  readonly waitReason: WaitReason;
  /** The response ended (default now, ms since epoch): the host's interval runs from here. Idempotent. */
  release(endedAt?: number): void;
}

/** Waits for the host slot of `url` under `decision` (its Crawl-delay, its override). */
export type TakeSlot = (url: string, decision: Decision, signal?: AbortSignal) => Promise<Slot>;

export interface PaceOptions {
  limiter: RateLimiter;
  /** Floor between two requests to one host, ms (before jitter). */
  minIntervalMs: number;
  /** Largest jitter added to the floor, a fraction of it (0.2: +0 to +20 %). */
  jitter: number;
  /** Interval for a host under override, ms. */
  overrideIntervalMs: number;
  /** A slot never given back stops counting after this long (its holder died), ms. */
  leaseMs: number;
  random?: () => number;
}

/** Sleeps `ms`, or less when `wake` is called (a slot of the host was given back here). */
function nap(ms: number, wakers: Set<() => void>, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      wakers.delete(done);
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      done();
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    wakers.add(done);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** While a host's slot is held in this process, a waiter sleeps until it is given back (then the
 *  limiter names the next time), not at the limiter's polling pace; this long at most, in case
 *  the holder's lease ends elsewhere. */
const HELD_WAIT_MS = 1_000;

/** The host key politeness uses everywhere: `URL.host` (the port when not the default). */
export function hostOf(url: string): string {
  return new URL(url).host;
}

/** A TakeSlot over `o.limiter`: polls it at the times it names, never sooner. */
export function limiterPace(o: PaceOptions): TakeSlot {
  const random = o.random ?? Math.random;
  // Hosts whose slot this process holds, and who waits for them here.
  const held = new Set<string>();
  const waiting = new Map<string, Set<() => void>>();
  return async (url, decision, signal) => {
    const host = hostOf(url);
    const { ms, reason } = hostInterval(
      { crawlDelaySeconds: decision.crawlDelaySeconds, underOverride: decision.overridden },
      { minIntervalMs: o.minIntervalMs, overrideIntervalMs: o.overrideIntervalMs },
      1 + random() * o.jitter,
    );
    for (;;) {
      const r = await o.limiter.tryAcquire(host, ms, o.leaseMs);
      if (r.ok) {
        held.add(host);
        let released = false;
        return {
          intervalMs: ms,
          waitReason: reason,
          release: (endedAt = Date.now()) => {
            if (released) return;
            released = true;
            held.delete(host);
            // A limiter failing (Redis gone) must not fail the response already received.
            o.limiter.release(r.lease, endedAt).then(
              () => {
                for (const wake of [...(waiting.get(host) ?? [])]) wake();
              },
              () => {},
            );
          },
        };
      }
      let wakers = waiting.get(host);
      if (!wakers) waiting.set(host, (wakers = new Set()));
      const wait = Math.max(1, r.retryAt - Date.now());
      try {
        await nap(held.has(host) ? Math.max(wait, HELD_WAIT_MS) : wait, wakers, signal);
      } finally {
        if (wakers.size === 0) waiting.delete(host);
      }
    }
  };
}
