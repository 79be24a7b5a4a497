import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStores, RedisUnreachableError, type RedisStores } from '../../src/stores/redis.js';
import type { Lease } from '../../src/stores/types.js';
import { deleteKeys, redisUrl, uniquePrefix } from './redis-test-keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Redis TIME and Date.now() read the same wall clock here, but Redis whole milliseconds are
// truncated: allow that one millisecond and no more.
const CLOCK_MS = 2;

let opened: RedisStores[] = [];
let prefixes: string[] = [];

async function clients(n: number, name: string): Promise<RedisStores[]> {
  const prefix = uniquePrefix(name);
  prefixes.push(prefix);
  const out: RedisStores[] = [];
  for (let i = 0; i < n; i++) out.push(await createRedisStores(redisUrl(), { prefix }));
  opened.push(...out);
  return out;
}

afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  for (const p of prefixes) await deleteKeys(p);
  opened = [];
  prefixes = [];
});

interface Slot {
  worker: number;
  grantedAt: number;
  endedAt: number;
}

/** Four clients race for one host; each holds its lease `holdMs` like a request would. */
async function race(stores: RedisStores[], host: string, intervalMs: number, holdMs: number, total: number): Promise<Slot[]> {
  const slots: Slot[] = [];
  const deadline = Date.now() + 10_000;
  await Promise.all(
    stores.map(async ({ limiter }, worker) => {
      while (slots.length < total && Date.now() < deadline) {
        const r = await limiter.tryAcquire(host, intervalMs, 5_000);
        if (!r.ok) {
          // Poll sooner than told, to prove the limiter, not the politeness of callers, holds the line.
          await sleep(Math.max(1, Math.min(5, r.retryAt - Date.now())));
          continue;
        }
        const grantedAt = Date.now();
        await sleep(holdMs);
        const endedAt = Date.now();
        slots.push({ worker, grantedAt, endedAt });
        await limiter.release(r.lease, endedAt);
      }
    }),
  );
  return slots.sort((a, b) => a.grantedAt - b.grantedAt);
}

describe('RedisRateLimiter', () => {
  it('keeps one host interval across several clients, one request in flight at a time', async () => {
    const stores = await clients(4, 'lim-interval');
    const slots = await race(stores, 'a.test', 80, 15, 10);
    expect(slots.length).toBeGreaterThanOrEqual(10);
    for (let i = 1; i < slots.length; i++) {
      const prev = slots[i - 1]!;
      const cur = slots[i]!;
      // exclusive: the next grant comes after the previous response ended
      expect(cur.grantedAt).toBeGreaterThanOrEqual(prev.endedAt);
      // and at least the interval after it
      expect(cur.grantedAt - prev.endedAt).toBeGreaterThanOrEqual(80 - CLOCK_MS);
    }
    // more than one worker got the host: the fleet shared it
    expect(new Set(slots.map((s) => s.worker)).size).toBeGreaterThan(1);
  });

  it('keeps hosts apart: one host in flight does not hold another', async () => {
    const [a, b] = await clients(2, 'lim-hosts');
    const first = await a!.limiter.tryAcquire('x.test', 1_000, 5_000);
    const other = await b!.limiter.tryAcquire('y.test', 1_000, 5_000);
    const same = await b!.limiter.tryAcquire('x.test', 1_000, 5_000);
    expect(first.ok).toBe(true);
    expect(other.ok).toBe(true);
    expect(same.ok).toBe(false);
  });

  it('frees a host when the lease of a dead holder lapses, then keeps the interval from there', async () => {
    const [dead, alive] = await clients(2, 'lim-lease');
    const t0 = Date.now();
    const held = await dead!.limiter.tryAcquire('a.test', 100, 200);
    expect(held.ok).toBe(true);
    await dead!.close(); // the holder is gone and never releases

    const refused = await alive!.limiter.tryAcquire('a.test', 100, 5_000);
    expect(refused.ok).toBe(false);
    let lease: Lease | undefined;
    for (let i = 0; i < 200 && !lease; i++) {
      const r = await alive!.limiter.tryAcquire('a.test', 100, 5_000);
      if (r.ok) lease = r.lease;
      else await sleep(5);
    }
    expect(lease).toBeDefined();
    // lease 200 ms, then the 100 ms interval counted from the lease's end
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300 - CLOCK_MS);
  });

  it('holds a host until a Retry-After back-off passes, and says when to come back', async () => {
    const [a, b] = await clients(2, 'lim-backoff');
    const r = await a!.limiter.tryAcquire('a.test', 10, 5_000);
    if (!r.ok) throw new Error('first acquire refused');
    const now = Date.now();
    await a!.limiter.release(r.lease, now, now + 250);
    const refused = await b!.limiter.tryAcquire('a.test', 10, 5_000);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.retryAt).toBeGreaterThanOrEqual(now + 250 - CLOCK_MS);
    await sleep(Math.max(0, refused.retryAt - Date.now()) + 2);
    expect((await b!.limiter.tryAcquire('a.test', 10, 5_000)).ok).toBe(true);
  });

  it('ignores a late release of a lease that lapsed and went to another worker', async () => {
    const [a, b] = await clients(2, 'lim-stale');
    const first = await a!.limiter.tryAcquire('a.test', 0, 50);
    if (!first.ok) throw new Error('refused');
    await sleep(60);
    const second = await b!.limiter.tryAcquire('a.test', 0, 5_000);
    if (!second.ok) throw new Error('the lapsed lease still held the host');
    await a!.limiter.release(first.lease, Date.now());
    // b's lease is still in force: nobody else may send
    expect((await a!.limiter.tryAcquire('a.test', 0, 5_000)).ok).toBe(false);
  });

  it('a request within a held lease takes no second slot: one at a time, spaced, its end the host\'s', async () => {
    const [a, b] = await clients(2, 'lim-within');
    const held = await a!.limiter.tryAcquire('a.test', 0, 5_000);
    if (!held.ok) throw new Error('refused');
    // Without `within`, the holder's own second request would wait for the lease it holds.
    expect((await a!.limiter.tryAcquire('a.test', 100, 5_000)).ok).toBe(false);
    const first = await a!.limiter.tryAcquire('a.test', 100, 5_000, held.lease);
    if (!first.ok) throw new Error('a request under the held lease was refused');
    // One at a time under the lease; everyone else waits for the lease.
    expect((await a!.limiter.tryAcquire('a.test', 100, 5_000, held.lease)).ok).toBe(false);
    expect((await b!.limiter.tryAcquire('a.test', 0, 5_000)).ok).toBe(false);
    const endedAt = Date.now();
    await a!.limiter.release(first.lease, endedAt);
    const early = await a!.limiter.tryAcquire('a.test', 100, 5_000, held.lease);
    expect(early.ok).toBe(false);
    if (early.ok) return;
    expect(early.retryAt).toBeGreaterThanOrEqual(endedAt + 100 - CLOCK_MS);
    await sleep(Math.max(0, early.retryAt - Date.now()) + 2);
    const second = await a!.limiter.tryAcquire('a.test', 100, 5_000, held.lease);
    if (!second.ok) throw new Error('the second request under the lease was refused after the interval');
    const secondEnd = Date.now();
    await a!.limiter.release(second.lease, secondEnd);
    // The lease's own release reports an earlier end: the host still counts from the later one.
    await a!.limiter.release(held.lease, endedAt);
    const other = await b!.limiter.tryAcquire('a.test', 200, 5_000);
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.retryAt).toBeGreaterThanOrEqual(secondEnd + 200 - CLOCK_MS);
    // A token the host does not hold is no lease: taken as without it.
    expect((await b!.limiter.tryAcquire('b.test', 0, 5_000, held.lease)).ok).toBe(true);
  });

  it('rejects an unreachable Redis at start with an error that names the URL', async () => {
    const url = 'redis://127.0.0.1:1';
    const err = await createRedisStores(url, { connectTimeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnreachableError);
    expect((err as RedisUnreachableError).code).toBe('ERR_REDIS_UNREACHABLE');
    expect((err as Error).message).toContain('127.0.0.1:1');
  });

  it('refuses a URL that is not redis://', async () => {
    await expect(createRedisStores('http://127.0.0.1:6379')).rejects.toMatchObject({ code: 'ERR_REDIS_URL' });
  });
});
