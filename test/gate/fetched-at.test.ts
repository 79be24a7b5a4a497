// A policy's fetchedAt is the moment its robots.txt response ended as the host's politeness counts
// it, not the later moment the body had been read and hashed. The report measures the first
// request's gap from fetchedAt: stamped later, a request sent exactly one interval after the
// robots.txt response read as "too soon" (CI saw 998 ms under a 1,000 ms floor on a loaded machine).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryRateLimiter, RobotsGate } from '../../src/index.js';
import type { Lease } from '../../src/stores/types.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

/** The shipped limiter, recording each release's end; the first one also keeps the event loop
 *  busy for a while, as a loaded machine does between a response's end and its body being read. */
class RecordingLimiter extends MemoryRateLimiter {
  readonly ends: number[] = [];
  #record(endedAt: number): void {
    this.ends.push(endedAt);
    if (this.ends.length === 1) {
      const until = Date.now() + 15;
      while (Date.now() < until);
    }
  }
  override release(lease: Lease, endedAt: number, notBefore?: number): Promise<void> {
    this.#record(endedAt);
    return super.release(lease, endedAt, notBefore);
  }
  // The pacer's in-memory fast path.
  override releaseSync(lease: Lease, endedAt: number, notBefore?: number): void {
    this.#record(endedAt);
    super.releaseSync(lease, endedAt, notBefore);
  }
}

let vh: VirtualHosts;
beforeAll(async () => {
  vh = await startVirtualHosts({ 'stamp.test': site('User-agent: *\nDisallow: /private\n') });
});
afterAll(async () => {
  await vh?.close();
});

it('is the end the limiter was given for the robots.txt request', async () => {
  const limiter = new RecordingLimiter();
  const gate = new RobotsGate({ userAgent: 'StampBot/1.0', resolve: vh.resolve, minIntervalMs: 100, jitter: 0, limiter });
  try {
    const d = await gate.check(`${vh.origin('stamp.test')}/page`);
    expect(d.allowed).toBe(true);
    expect(limiter.ends).toHaveLength(1);
    expect(Date.parse(d.policy.fetchedAt)).toBe(limiter.ends[0]);
  } finally {
    await gate.close();
  }
});
