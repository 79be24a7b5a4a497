import { afterEach, describe, expect, it } from 'vitest';
import { FleetStateLostError, RedisFrontier, type RedisFrontierOptions } from '../../src/crawl/redis-frontier.js';
import type { TakenItem } from '../../src/politeness/types.js';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import { deleteKeys, redisUrl, uniquePrefix } from '../stores/redis-test-keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CLOCK_MS = 2; // Redis whole milliseconds vs Date.now()

let opened: { stores: RedisStores; frontier: RedisFrontier }[] = [];
let prefixes: string[] = [];

async function workers(n: number, name: string, options: Partial<RedisFrontierOptions> = {}): Promise<RedisFrontier[]> {
  const prefix = uniquePrefix(name);
  prefixes.push(prefix);
  const out: RedisFrontier[] = [];
  for (let i = 0; i < n; i++) {
    const stores = await createRedisStores(redisUrl(), { prefix });
    const frontier = new RedisFrontier(stores.connection, {
      prefix,
      run: 'r1',
      worker: `w${i}`,
      minIntervalMs: 30,
      jitter: 0,
      pollMs: 10,
      ...options,
    });
    opened.push({ stores, frontier });
    out.push(frontier);
  }
  return out;
}

afterEach(async () => {
  for (const { stores, frontier } of opened) {
    await frontier.close();
    await stores.close();
  }
  for (const p of prefixes) await deleteKeys(p);
  opened = [];
  prefixes = [];
});

function urls(hosts: number, perHost: number): { url: string; host: string }[] {
  const out: { url: string; host: string }[] = [];
  for (let h = 0; h < hosts; h++) for (let i = 0; i < perHost; i++) out.push({ url: `http://h${h}.test/p${i}`, host: `h${h}.test` });
  return out;
}

interface Fetch {
  url: string;
  host: string;
  worker: number;
  start: number;
  end: number;
}

/** Each worker takes and "fetches" (holds `holdMs`) until the frontier says drained. */
async function drain(frontiers: RedisFrontier[], holdMs: number, deadlineMs = 15_000): Promise<Fetch[]> {
  const log: Fetch[] = [];
  const deadline = Date.now() + deadlineMs;
  await Promise.all(
    frontiers.map(async (f, worker) => {
      const busy = new Set<Promise<void>>();
      while (Date.now() < deadline) {
        const r = await f.take();
        if (r.kind === 'drained') break;
        if (r.kind === 'wait') {
          await sleep(Math.min(20, Math.max(1, (r.retryAt ?? Date.now() + 5) - Date.now())));
          continue;
        }
        const p = (async () => {
          const start = Date.now();
          await sleep(holdMs);
          const end = Date.now();
          log.push({ url: r.item.url, host: r.item.host, worker, start, end });
          await f.complete(r, end);
        })();
        busy.add(p);
        void p.finally(() => busy.delete(p));
      }
      await Promise.all(busy);
    }),
  );
  return log;
}

describe('RedisFrontier', () => {
  it('enqueues a list once however many workers add it', async () => {
    const [a, b] = await workers(2, 'fr-add');
    const list = urls(3, 10);
    const [na, nb] = await Promise.all([a!.add(list), b!.add(list)]);
    expect(na + nb).toBe(30);
    expect(await a!.add(list)).toBe(0);
    expect((await b!.counts()).queued).toBe(30);
    expect((await b!.counts()).hosts).toBe(3);
  });

  it('gives each URL to exactly one worker, keeps each host interval, and drains fleet-wide', async () => {
    const fs = await workers(3, 'fr-once');
    const list = urls(6, 8);
    await Promise.all(fs.map((f) => f.add(list)));
    const log = await drain(fs, 5);
    expect(log.map((f) => f.url).sort()).toEqual(list.map((u) => u.url).sort());
    for (let h = 0; h < 6; h++) {
      const mine = log.filter((f) => f.host === `h${h}.test`).sort((x, y) => x.start - y.start);
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i]!.start - mine[i - 1]!.end).toBeGreaterThanOrEqual(30 - CLOCK_MS);
      }
    }
    expect(new Set(log.map((f) => f.worker)).size).toBe(3);
    for (const f of fs) expect(await f.isDrained()).toBe(true);
  });

  it('serves hosts in order of their next allowed time', async () => {
    const [f] = await workers(1, 'fr-order', { minIntervalMs: 0 });
    await f!.add([
      { url: 'http://slow.test/1', host: 'slow.test' },
      { url: 'http://slow.test/2', host: 'slow.test' },
      { url: 'http://fast.test/1', host: 'fast.test' },
      { url: 'http://fast.test/2', host: 'fast.test' },
    ]);
    await f!.setHostPolicy('slow.test', { crawlDelaySeconds: 0.3 });
    await f!.setHostPolicy('fast.test', { crawlDelaySeconds: 0.05 });
    const order: string[] = [];
    for (let i = 0; i < 200 && order.length < 4; i++) {
      const r = await f!.take();
      if (r.kind !== 'item') {
        await sleep(5);
        continue;
      }
      order.push(r.item.url);
      await f!.complete(r, Date.now());
    }
    // both first URLs go at once; then fast.test's second opens 50 ms later, slow.test's at 300 ms
    expect(order.slice(2)).toEqual(['http://fast.test/2', 'http://slow.test/2']);
  });

  it('keeps a live worker\'s long request leased, and returns a dead worker\'s URL after its lease', async () => {
    const [live, dead, other] = await workers(3, 'fr-lease', { leaseMs: 300, minIntervalMs: 0 });
    await live!.add([{ url: 'http://a.test/1', host: 'a.test' }, { url: 'http://b.test/1', host: 'b.test' }]);

    const held = await live!.take();
    expect(held.kind).toBe('item');
    await sleep(700); // more than two lease lengths: renewed meanwhile
    const lost = await dead!.take();
    expect(lost.kind).toBe('item');
    if (held.kind !== 'item' || lost.kind !== 'item') return;
    expect(lost.item.url).not.toBe(held.item.url);
    await live!.complete(held, Date.now());

    // `dead` stops renewing (its process is gone)
    await dead!.close();
    const t0 = Date.now();
    let back: TakenItem | undefined;
    for (let i = 0; i < 200 && !back; i++) {
      const r = await other!.take();
      if (r.kind === 'item') back = r;
      else await sleep(10);
    }
    expect(back?.item.url).toBe(lost.item.url);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200); // it waited for the lease to lapse
    await other!.complete(back!, Date.now());
    expect(await other!.take()).toEqual({ kind: 'drained' });
  });

  it('puts a retried URL back at the head with the next attempt, after its back-off', async () => {
    const [f] = await workers(1, 'fr-retry', { minIntervalMs: 0 });
    await f!.add([{ url: 'http://a.test/1', host: 'a.test' }, { url: 'http://a.test/2', host: 'a.test' }]);
    const first = await f!.take();
    if (first.kind !== 'item') throw new Error('no item');
    const now = Date.now();
    await f!.fail(first, now, { retry: true, notBefore: now + 150 });
    const early = await f!.take();
    expect(early.kind).toBe('wait');
    await sleep(170);
    const again = await f!.take();
    expect(again.kind === 'item' && again.item).toEqual({ url: 'http://a.test/1', host: 'a.test', attempt: 2 });
    expect(again.kind === 'item' && again.waitReason).toBe('backoff');
  });

  it('puts a requeued URL back at the head with the same attempt, the host held until its hold ends', async () => {
    const [f] = await workers(1, 'fr-requeue', { minIntervalMs: 0, concurrency: 1 });
    await f!.add([{ url: 'http://a.test/1', host: 'a.test' }, { url: 'http://a.test/2', host: 'a.test' }, { url: 'http://b.test/1', host: 'b.test' }]);
    const first = await f!.take();
    if (first.kind !== 'item') throw new Error('no item');
    expect(first.item.host).toBe('a.test');
    await f!.fail(first, Date.now(), { notSent: true, requeue: true, holdUntil: Date.now() + 300 });
    expect(await f!.counts()).toMatchObject({ queued: 3, inFlight: 0, done: 0 });
    const other = await f!.take();
    expect(other.kind === 'item' && other.item.host).toBe('b.test');
    if (other.kind === 'item') await f!.complete(other, Date.now());
    expect((await f!.take()).kind).toBe('wait');
    await sleep(320 + CLOCK_MS);
    const again = await f!.take();
    expect(again.kind === 'item' && again.item).toEqual({ url: 'http://a.test/1', host: 'a.test', attempt: 1 });
    // A retried URL handed back keeps its attempt too.
    if (again.kind !== 'item') throw new Error('no item');
    await f!.fail(again, Date.now(), { retry: true });
    const retry = await f!.take();
    if (retry.kind !== 'item') throw new Error('no item');
    await f!.fail(retry, Date.now(), { notSent: true, requeue: true, holdUntil: Date.now() });
    const third = await f!.take();
    expect(third.kind === 'item' && third.item).toEqual({ url: 'http://a.test/1', host: 'a.test', attempt: 2 });
  });

  it('lists and removes a host\'s queued URLs', async () => {
    const [f, g] = await workers(2, 'fr-remove');
    await f!.add(urls(1, 4));
    expect((await g!.pending('h0.test')).map((p) => p.url)).toEqual(['http://h0.test/p0', 'http://h0.test/p1', 'http://h0.test/p2', 'http://h0.test/p3']);
    expect(await g!.remove('h0.test', ['http://h0.test/p1', 'http://h0.test/p3', 'http://nope.test/'])).toBe(2);
    const c = await f!.counts();
    expect(c.queued).toBe(2);
    expect(c.done).toBe(2);
  });

  it('says so when the run vanishes from Redis under a worker that joined it, rather than finish', async () => {
    const [joined, idle] = await workers(2, 'fr-gone');
    await joined!.add(urls(2, 3));
    await deleteKeys(prefixes.at(-1)!); // Redis restarted without persistence, or flushed
    await expect(joined!.take()).rejects.toBeInstanceOf(FleetStateLostError);
    await expect(joined!.take()).rejects.toMatchObject({ code: 'ERR_FLEET_STATE_LOST' });
    // a worker that brought no URL of its own has nothing to miss: the run is simply over
    expect(await idle!.take()).toEqual({ kind: 'drained' });
  });

  it('shares each host\'s lease with the RedisRateLimiter on the same prefix', async () => {
    const [f] = await workers(1, 'fr-limiter', { minIntervalMs: 100 });
    const { limiter } = opened.at(-1)!.stores;
    await f!.add([{ url: 'http://a.test/1', host: 'a.test' }]);
    // someone else (a gated fetch through the limiter) is sending to a.test right now
    const held = await limiter.tryAcquire('a.test', 100, 5_000);
    if (!held.ok) throw new Error('refused');
    expect((await f!.take()).kind).toBe('wait');
    const endedAt = Date.now();
    await limiter.release(held.lease, endedAt);
    let taken: TakenItem | undefined;
    for (let i = 0; i < 100 && !taken; i++) {
      const r = await f!.take();
      if (r.kind === 'item') taken = r;
      else await sleep(5);
    }
    expect(taken?.item.url).toBe('http://a.test/1');
    expect(Date.now() - endedAt).toBeGreaterThanOrEqual(100 - CLOCK_MS); // the floor, from that response's end
    // and while the frontier holds it, the limiter refuses it
    expect((await limiter.tryAcquire('a.test', 0, 5_000)).ok).toBe(false);
  });
});
