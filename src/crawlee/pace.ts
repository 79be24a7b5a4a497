// A host's slot for a Crawlee request, taken through the same Pacer and RateLimiter as the gate's
// own doors (gate.fetch, the interceptor, its robots.txt requests): one FIFO per host in this
// process, one clock per host wherever the limiter reaches (memory, or Redis for a fleet). So the
// interval holds whatever the crawler's concurrency: one request in flight per host, and the
// interval between the end of one response and the start of the next. A browser crawler's pages
// space the navigations they make themselves (redirect hops, frames, popups) on the same limiter
// and terms (NavigationTerms, for robots-gate/browser's and robots-gate/puppeteer's page gates).
import type { PacingGate } from '../browser/navigation-pace.js';
import type { RobotsGate } from '../gate/gate.js';
import type { Decision } from '../gate/types.js';
import { hostInterval, type Interval } from '../politeness/interval.js';
import { pacerFor } from '../politeness/pacer.js';
import type { WaitReason } from '../politeness/types.js';
import type { RateLimiter } from '../stores/types.js';

/** A taken slot: give it back once the response has ended. */
export interface Slot {
  /** The interval (ms) this request was spaced by. */
  readonly intervalMs: number;
  readonly waitReason: WaitReason;
  /**
   * The response ended: the host's interval runs from `endedAt` (default now, ms since epoch).
   * @param notBefore no request to the host before this (ms since epoch): a 429/503 back-off.
   * Idempotent.
   */
  release(endedAt?: number, notBefore?: number): void;
}

/** Waits for the host slot of `url` (decided as `decision`). */
export type TakeSlot = (url: string, decision: Decision, signal?: AbortSignal) => Promise<Slot>;

/** The host key politeness uses everywhere: `URL.host` (the port when not the default). */
export function hostOf(url: string): string {
  return new URL(url).host;
}

function slotOf(limiter: RateLimiter, host: string, interval: Interval, url: string, signal?: AbortSignal): Promise<Slot> {
  return pacerFor(limiter)
    .take(host, interval, signal, url)
    .then((slot) => {
      let released = false;
      return {
        intervalMs: interval.ms,
        waitReason: interval.reason,
        release: (endedAt = Date.now(), notBefore?: number) => {
          if (released) return;
          released = true;
          // A limiter failing (Redis gone) must not fail the response already received.
          slot.release(endedAt, notBefore).catch(() => {});
        },
      };
    });
}

/** The gate's own spacing: its limiter, its terms (`minIntervalMs`, `jitter`, Crawl-delay, override). */
export function gatePace(gate: RobotsGate): TakeSlot {
  return (url, _decision, signal) => slotOf(gate.limiter, hostOf(url), gate.intervalFor(url), url, signal);
}

/** The limiter and the interval per URL a page's own navigations are spaced by: a TakeSlot's. */
export type NavigationTerms = PacingGate;

/** gatePace's limiter and terms, for a page's own navigations. */
export function gateNavigations(gate: RobotsGate): NavigationTerms {
  return { limiter: gate.limiter, intervalFor: (url) => gate.intervalFor(url) };
}

export interface PaceOptions {
  limiter: RateLimiter;
  /** Floor between two requests to one host, ms (before jitter). */
  minIntervalMs: number;
  /** Largest jitter added to the floor, a fraction of it (0.2: +0 to +20 %). */
  jitter: number;
  /** Interval for a host under override, ms. */
  overrideIntervalMs: number;
  random?: () => number;
}

/** `o`'s interval for a URL decided as `decision` (its Crawl-delay, its override). */
function termsInterval(o: PaceOptions, decision: Pick<Decision, 'crawlDelaySeconds' | 'overridden'>): Interval {
  return hostInterval(
    { crawlDelaySeconds: decision.crawlDelaySeconds, underOverride: decision.overridden },
    { minIntervalMs: o.minIntervalMs, overrideIntervalMs: o.overrideIntervalMs },
    1 + (o.random ?? Math.random)() * o.jitter,
  );
}

/** Spacing on terms of the caller's own (a floor other than the gate's), through `o.limiter`. */
export function limiterPace(o: PaceOptions): TakeSlot {
  return (url, decision, signal) => slotOf(o.limiter, hostOf(url), termsInterval(o, decision), url, signal);
}

/** limiterPace's limiter and terms, for a page's own navigations (each allowed by the decision
 *  the page gate hands over; without one, its host's override as `underOverride` says). */
export function limiterNavigations(o: PaceOptions, underOverride: (host: string) => boolean): NavigationTerms {
  return {
    limiter: o.limiter,
    intervalFor: (url, decision) => termsInterval(o, decision ?? { crawlDelaySeconds: undefined, overridden: underOverride(new URL(url).host) }),
  };
}
