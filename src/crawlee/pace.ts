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

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The host key politeness uses everywhere: `URL.host` (the port when not the default). */
export function hostOf(url: string): string {
  return new URL(url).host;
}

/** A TakeSlot over `o.limiter`: polls it at the times it names, never sooner. */
export function limiterPace(o: PaceOptions): TakeSlot {
  const random = o.random ?? Math.random;
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
        let released = false;
        return {
          intervalMs: ms,
          waitReason: reason,
          release: (endedAt = Date.now()) => {
            if (released) return;
            released = true;
            // A limiter failing (Redis gone) must not fail the response already received.
            o.limiter.release(r.lease, endedAt).catch(() => {});
          },
        };
      }
      await sleep(Math.max(1, r.retryAt - Date.now()), signal);
    }
  };
}
