// The remembered interval, for both limiters alike: a request waits max(its own interval, the
// one the host's last lease was granted under) after the last end. Lower bounds only.
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import diagnostics_channel from 'node:diagnostics_channel';
import { Pacer, type WaitEvent } from '../../src/politeness/pacer.js';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import type { AcquireResult, Lease, RateLimiter } from '../../src/stores/types.js';
import { deleteKeys, redisUrl, uniquePrefix } from './redis-test-keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Redis whole milliseconds are truncated: one millisecond of slack.
const CLOCK_MS = 2;
const LEASE_MS = 5_000;

const prefix = uniquePrefix('held-interval');
let redis: RedisStores | undefined;
afterAll(async () => {
  await redis?.close();
  await deleteKeys(prefix);
});

const limiters: [string, () => Promise<RateLimiter>][] = [
  ['MemoryRateLimiter', async () => new MemoryRateLimiter()],
  ['RedisRateLimiter', async () => (redis ??= await createRedisStores(redisUrl(), { prefix })).limiter],
];

function lease(r: AcquireResult): Lease {
  if (!r.ok) throw new Error(`refused until ${r.retryAt}`);
  return r.lease;
}

/** Ask until granted, sleeping until each retryAt; returns the lease and when it was granted. */
async function acquire(l: RateLimiter, host: string, intervalMs: number): Promise<{ lease: Lease; at: number }> {
  for (;;) {
    const r = await l.tryAcquire(host, intervalMs, LEASE_MS);
    if (r.ok) return { lease: r.lease, at: Date.now() };
    await sleep(Math.max(0, r.retryAt - Date.now()));
  }
}

describe.each(limiters)('%s', (_name, make) => {
  let n = 0;
  const host = () => `h${++n}-${Date.now()}.test`;

  it("a request under a shorter interval waits the last holder's; the one after, its own", async () => {
    const l = await make();
    const h = host();
    const first = lease(await l.tryAcquire(h, 400, LEASE_MS));
    const end1 = Date.now();
    await l.release(first, end1);
    const refused = await l.tryAcquire(h, 50, LEASE_MS);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAt).toBeGreaterThanOrEqual(end1 + 400 - CLOCK_MS);
    const second = await acquire(l, h, 50);
    expect(second.at).toBeGreaterThanOrEqual(end1 + 400 - CLOCK_MS);
    const end2 = Date.now();
    await l.release(second.lease, end2);
    // The second holder knew 50: a shrunk interval counts from the request after the long one
    // (the limiter's own answer, not a measured time).
    const asked = await l.tryAcquire(h, 50, LEASE_MS);
    if (!asked.ok) expect(asked.retryAt).toBeLessThan(end2 + 400);
    const third = asked.ok ? { lease: asked.lease, at: Date.now() } : await acquire(l, h, 50);
    expect(third.at).toBeGreaterThanOrEqual(end2 + 50 - CLOCK_MS);
    await l.release(third.lease, Date.now());
  });

  it('an endOnly lease (a seed) is granted at once and does not lower the remembered interval', async () => {
    const l = await make();
    const h = host();
    const first = lease(await l.tryAcquire(h, 400, LEASE_MS));
    const end1 = Date.now();
    await l.release(first, end1);
    const seed = lease(await l.tryAcquire(h, 0, LEASE_MS, undefined, { endOnly: true }));
    await l.release(seed, end1 - 1_000, end1 - 500);
    const next = await acquire(l, h, 0);
    expect(next.at).toBeGreaterThanOrEqual(end1 + 400 - CLOCK_MS);
    await l.release(next.lease, Date.now());
  });

  it("a lease that lapses unreleased counts as ended at its expiry, under its holder's interval", async () => {
    const l = await make();
    const h = host();
    const t0 = Date.now();
    lease(await l.tryAcquire(h, 400, 100));
    const next = await acquire(l, h, 0);
    expect(next.at).toBeGreaterThanOrEqual(t0 + 100 + 400 - CLOCK_MS);
    await l.release(next.lease, Date.now());
  });

  it("Pacer.seed inside the remembered interval still counts (its back-off holds), and lowers nothing", async () => {
    const l = await make();
    const pacer = new Pacer(l, LEASE_MS);
    const h = host();
    const first = lease(await l.tryAcquire(h, 300, LEASE_MS));
    const end1 = Date.now();
    await l.release(first, end1);
    // An earlier run's last response, with its Crawl-delay as the back-off: later than 300 ms.
    await pacer.seed(h, end1 - 100, end1 + 600);
    const next = await acquire(l, h, 0);
    expect(next.at).toBeGreaterThanOrEqual(end1 + 600 - CLOCK_MS);
    await l.release(next.lease, Date.now());
  });

  it('an endOnly take (an end moved after a rendered page) waits no interval', async () => {
    const l = await make();
    const pacer = new Pacer(l, LEASE_MS);
    const h = host();
    const first = lease(await l.tryAcquire(h, 60_000, LEASE_MS));
    const end1 = Date.now();
    await l.release(first, end1);
    const move = await pacer.take(h, { ms: 0, reason: 'floor' }, undefined, undefined, undefined, { endOnly: true });
    await move.release(end1 + 1);
    // The page's interval still holds, from the moved end.
    const r = await l.tryAcquire(h, 0, LEASE_MS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.retryAt).toBeGreaterThanOrEqual(end1 + 1 + 60_000 - 1_000);
  });

  it('a request under a lease raises the interval its holder is remembered under', async () => {
    const l = await make();
    const h = host();
    const outer = lease(await l.tryAcquire(h, 50, LEASE_MS));
    const sub = lease(await l.tryAcquire(h, 400, LEASE_MS, outer));
    const end = Date.now();
    await l.release(sub, end);
    await l.release(outer, end);
    const next = await acquire(l, h, 50);
    expect(next.at).toBeGreaterThanOrEqual(end + 400 - CLOCK_MS);
    await l.release(next.lease, Date.now());
  });
  it("the wait event names the remembered interval when it is what held the request, and a back-off over it", async () => {
    const l = await make();
    const h = host();
    const pacer = new Pacer(l, LEASE_MS);
    const events: WaitEvent[] = [];
    const listen = (m: unknown) => void ((m as WaitEvent).host === h && events.push(m as WaitEvent));
    diagnostics_channel.subscribe('robots-gate:wait', listen);
    try {
      // A page under a 400 ms Crawl-delay, then a request asking only the 50 ms floor (the
      // gate's robots.txt refresh): the limiter holds it 400 ms, and the event says so.
      const page = await pacer.take(h, { ms: 400, reason: 'crawl-delay' });
      const end1 = Date.now();
      await page.release(end1);
      const robots = await pacer.take(h, { ms: 50, reason: 'floor' }, undefined, `http://${h}/robots.txt`);
      expect(Date.now()).toBeGreaterThanOrEqual(end1 + 400 - CLOCK_MS);
      const end2 = Date.now();
      await robots.release(end2, end2 + 300);
      // A back-off (300 ms) over the remembered 50: the event says backoff and its length,
      // nothing remembered.
      const after = await pacer.take(h, { ms: 20, reason: 'floor' }, undefined, `http://${h}/p`);
      await after.release(Date.now());
      expect(events.map((e) => [e.url, e.intervalMs, e.reason, e.remembered])).toEqual([
        [`http://${h}/robots.txt`, 400, 'floor', true],
        [`http://${h}/p`, 300, 'backoff', undefined],
      ]);
    } finally {
      diagnostics_channel.unsubscribe('robots-gate:wait', listen);
    }
  });
});
