// Redis away mid-run, at the library level: calls wait (no lease is granted locally), the
// status callback says lost then restored, and the call completes once Redis answers. A
// private redis-server, paused with SIGSTOP (a hung server), its connections cut, or killed
// and started again (refused connections meanwhile).
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStores, type RedisStatusEvent, type RedisStores } from '../../src/stores/redis.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup(): Promise<{ redis: OwnRedis; stores: RedisStores; events: RedisStatusEvent[] }> {
  const redis = await startOwnRedis();
  cleanup.push(() => redis.stop());
  const events: RedisStatusEvent[] = [];
  const stores = await createRedisStores(redis.url, { commandTimeoutMs: 300, onStatus: (e) => events.push(e) });
  cleanup.push(() => stores.close());
  return { redis, stores, events };
}

describe('Redis away mid-run', () => {
  it('holds every lease until Redis answers again, and says it was lost and is back', async () => {
    const { redis, stores, events } = await setup();
    redis.child.kill('SIGSTOP');
    const t0 = Date.now();
    let settledAt: number | undefined;
    const pending = stores.limiter.tryAcquire('a.test', 0, 5_000).then((r) => {
      settledAt = Date.now();
      return r;
    });
    await sleep(1_000);
    expect(settledAt).toBeUndefined(); // nothing granted while Redis is away
    redis.child.kill('SIGCONT');
    // The acquire timed out and was sent again (same token) while Redis was paused; Redis ran
    // both copies on waking. The second must hand back the first's lease, not refuse because
    // the host is now "in flight".
    const r = await pending;
    expect(r.ok).toBe(true);
    expect(settledAt! - t0).toBeGreaterThanOrEqual(1_000);
    expect(events.map((e) => e.state)).toEqual(['lost', 'restored']);
    expect(events[0]!.url).toBe(redis.url);
    expect(events[1]!.downMs).toBeGreaterThanOrEqual(900);
  });

  it('sends again, on reconnect, a command whose connection was cut before Redis ran it', async () => {
    const { redis, stores } = await setup();
    const admin = new Redis(redis.url);
    cleanup.push(async () => admin.disconnect());
    // Redis holds scripts (write commands) for a while; meanwhile every client connection is cut.
    await admin.client('PAUSE', 400, 'WRITE');
    const acquire = stores.limiter.tryAcquire('a.test', 0, 5_000);
    await sleep(100);
    await admin.client('KILL', 'TYPE', 'normal');
    expect((await acquire).ok).toBe(true);
    // and that lease is the only one
    expect((await stores.limiter.tryAcquire('a.test', 0, 5_000)).ok).toBe(false);
  });

  it('waits through refused connections until a server answers on the URL again', async () => {
    const { redis, stores, events } = await setup();
    await redis.stop();
    let settled = false;
    const pending = stores.limiter.tryAcquire('a.test', 0, 5_000).then((r) => {
      settled = true;
      return r;
    });
    await sleep(800);
    expect(settled).toBe(false);
    await redis.restart();
    expect((await pending).ok).toBe(true);
    expect(events.map((e) => e.state)).toEqual(['lost', 'restored']);
  });
});
