// The interval one host must see between the end of a response and the start of the next
// request. RFC 9309 does not define Crawl-delay; we treat it, where a group gives it, as a hard
// floor in seconds, because that is what the site asked for in writing.
import type { HostPolicy, WaitReason } from './types.js';

export interface IntervalTerms {
  /** Floor (ms) before jitter. */
  readonly minIntervalMs: number;
  /** Override interval (ms), applied while the host is under override. */
  readonly overrideIntervalMs: number;
}

export interface Interval {
  /** ms */
  readonly ms: number;
  /** The largest term. */
  readonly reason: WaitReason;
}

/**
 * The interval for one host: max(crawl-delay s → ms, floor × jitterFactor, override interval).
 * @param jitterFactor 1 to 1 + jitter, drawn once per gap so a reschedule keeps the same gap.
 */
export function hostInterval(policy: HostPolicy, terms: IntervalTerms, jitterFactor: number): Interval {
  let ms = terms.minIntervalMs * jitterFactor;
  let reason: WaitReason = 'floor';
  const delayMs = policy.crawlDelaySeconds !== undefined ? policy.crawlDelaySeconds * 1000 : 0;
  if (delayMs > ms) {
    ms = delayMs;
    reason = 'crawl-delay';
  }
  if (policy.underOverride && terms.overrideIntervalMs > ms) {
    ms = terms.overrideIntervalMs;
    reason = 'override';
  }
  // Round up to whole ms (never under the interval), after shedding floating-point noise
  // (100 × 1.1 is 110.00000000000001).
  return { ms: Math.ceil(Math.round(ms * 1e6) / 1e6), reason };
}
