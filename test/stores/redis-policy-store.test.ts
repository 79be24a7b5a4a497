import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import type { PolicyRecord } from '../../src/stores/types.js';
import { deleteKeys, redisUrl, uniquePrefix } from './redis-test-keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let opened: RedisStores[] = [];
let prefixes: string[] = [];

async function clients(n: number, name: string): Promise<RedisStores[]> {
  const prefix = uniquePrefix(name);
  prefixes.push(prefix);
  const out: RedisStores[] = [];
  for (let i = 0; i < n; i++) out.push(await createRedisStores(redisUrl(), { prefix, pollMs: 50 }));
  opened.push(...out);
  return out;
}

afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  for (const p of prefixes) await deleteKeys(p);
  opened = [];
  prefixes = [];
});

function record(origin: string, body: string, maxAgeMs = 60_000): PolicyRecord {
  const fetchedAt = Date.now();
  return {
    origin,
    robotsUrl: `${origin}/robots.txt`,
    finalUrl: `${origin}/robots.txt`,
    kind: 'parsed',
    status: 200,
    body,
    sha256: `sha-of-${body}`,
    fetchedAt,
    expiresAt: fetchedAt + maxAgeMs,
  };
}

describe('RedisPolicyStore', () => {
  it('loads an origin once across several clients, and every caller gets that load', async () => {
    const stores = await clients(4, 'pol-single');
    let loads = 0;
    const load = (who: number) => async () => {
      loads++;
      await sleep(100);
      return record('http://a.test', `from ${who}`);
    };
    const calls = stores.flatMap(({ store }, who) =>
      Array.from({ length: 10 }, () => store.singleFlight('http://a.test', load(who), 5_000)),
    );
    const results = await Promise.all(calls);
    expect(loads).toBe(1);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    // a client that comes later finds the record without loading
    const later = await stores[2]!.store.get('http://a.test');
    expect(later?.body).toBe(results[0]!.body);
  });

  it('does not load again for a caller that missed a load finished just before its call', async () => {
    const [a, b] = await clients(2, 'pol-race');
    let loads = 0;
    const load = async () => {
      loads++;
      return record('http://a.test', 'x');
    };
    await a!.store.singleFlight('http://a.test', load, 5_000);
    await b!.store.singleFlight('http://a.test', load, 5_000);
    expect(loads).toBe(1);
  });

  it('loads again once the record has expired', async () => {
    const [a, b] = await clients(2, 'pol-expiry');
    let loads = 0;
    const load = async () => record('http://a.test', `v${++loads}`, 50);
    await a!.store.singleFlight('http://a.test', load, 5_000);
    await sleep(80);
    const again = await b!.store.singleFlight('http://a.test', load, 5_000);
    expect(loads).toBe(2);
    expect(again.body).toBe('v2');
    // the expired copy was kept until replaced (stale use, RFC 9309 §2.4), now it is the new one
    expect((await a!.store.get('http://a.test'))?.body).toBe('v2');
  });

  it('keeps an expired record for stale use', async () => {
    const [a] = await clients(1, 'pol-stale');
    const r = { ...record('http://a.test', 'old', 0), expiresAt: Date.now() - 1_000 };
    await a!.store.set(r);
    expect(await a!.store.get('http://a.test')).toEqual(r);
  });

  it('lets a waiter take over when the loader dies holding the lock, after its lease', async () => {
    const [dying, waiter] = await clients(2, 'pol-takeover');
    // The loader takes the lock (its lease starts then) and never finishes; then its process is
    // gone (its connection closed). Waiting for the lock rather than a fixed sleep: on a loaded
    // machine 30 ms was not always enough for it to reach Redis, and the waiter took over at once.
    let t0 = 0;
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    void dying!.store
      .singleFlight(
        'http://a.test',
        () => {
          t0 = Date.now();
          locked();
          return new Promise<PolicyRecord>(() => {});
        },
        300,
      )
      .catch(() => {});
    await holding;
    await dying!.close();
    let loads = 0;
    const got = await waiter!.store.singleFlight(
      'http://a.test',
      async () => {
        loads++;
        return record('http://a.test', 'taken over');
      },
      300,
    );
    expect(loads).toBe(1);
    expect(got.body).toBe('taken over');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300 - 2);
  });

  it('lets a waiter take over at once when the load fails, and reports the failure to the loader', async () => {
    const [a, b] = await clients(2, 'pol-fail');
    const failing = a!.store.singleFlight(
      'http://a.test',
      async () => {
        await sleep(50);
        throw new Error('boom');
      },
      10_000,
    );
    await sleep(10);
    const t0 = Date.now();
    const waiting = b!.store.singleFlight('http://a.test', async () => record('http://a.test', 'b'), 10_000);
    await expect(failing).rejects.toThrow('boom');
    expect((await waiting).body).toBe('b');
    expect(Date.now() - t0).toBeLessThan(5_000); // long before the 10 s lease
  });

  it('shares override marks across the fleet', async () => {
    const [a, b] = await clients(2, 'pol-override');
    expect(await b!.store.isUnderOverride('x.test')).toBe(false);
    await a!.store.markOverride('X.test');
    expect(await b!.store.isUnderOverride('x.test')).toBe(true);
    expect(await b!.store.isUnderOverride('y.test')).toBe(false);
  });

  it('keeps override marks per run when given a run name', async () => {
    const prefix = uniquePrefix('pol-override-run');
    prefixes.push(prefix);
    const a = await createRedisStores(redisUrl(), { prefix, run: 'one' });
    const b = await createRedisStores(redisUrl(), { prefix, run: 'one' });
    const other = await createRedisStores(redisUrl(), { prefix, run: 'two' });
    opened.push(a, b, other);
    await a.store.markOverride('x.test');
    expect(await b.store.isUnderOverride('x.test')).toBe(true);
    expect(await other.store.isUnderOverride('x.test')).toBe(false);
  });
});
