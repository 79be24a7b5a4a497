// The gate over a shared Redis PolicyStore: workers with their own gates (and connections) fetch
// each origin's robots.txt once between them, and share override marks.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsGate } from '../../src/index.js';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import { deleteKeys } from '../stores/redis-test-keys.js';

const UA = 'FleetBot/1.0';
let vh: VirtualHosts;
const stores: RedisStores[] = [];
const gates: RobotsGate[] = [];
// Unique per run, and deleted after: the test Redis is shared with later runs.
const prefix = `rg-test-${randomUUID()}:`;

beforeAll(async () => {
  const slow = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url === '/robots.txt') await new Promise((r) => setTimeout(r, 80));
    res.writeHead(200).end(req.url === '/robots.txt' ? 'User-agent: *\nDisallow: /private\n' : 'page');
  };
  vh = await startVirtualHosts({ 'fleet.test': slow, 'over.test': slow, 'runs.test': slow });
  for (let i = 0; i < 3; i++) {
    const s = await createRedisStores(process.env.REDIS_URL!, { prefix, pollMs: 20 });
    stores.push(s);
    gates.push(new RobotsGate({ userAgent: UA, store: s.store, resolve: vh.resolve, timeoutMs: 5000, override: ['over.test'] }));
  }
});
afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
  await Promise.all(stores.map((s) => s.close()));
  await vh?.close();
  await deleteKeys(prefix);
});

it('three workers, 300 concurrent checks of a cold origin: one robots.txt request', async () => {
  const ds = await Promise.all(
    Array.from({ length: 300 }, (_, i) => gates[i % 3]!.check(`${vh.origin('fleet.test')}/${i % 3 === 0 ? 'private' : 'open'}/${i}`)),
  );
  expect(vh.requests('fleet.test', '/robots.txt')).toHaveLength(1);
  expect(ds.filter((d) => !d.allowed)).toHaveLength(100);
  expect(new Set(ds.map((d) => d.policy.sha256)).size).toBe(1);
});

it('an override mark made by one worker is seen by the others when they load the origin', async () => {
  const d = await gates[0]!.check(`${vh.origin('over.test')}/private`);
  expect(d.overridden).toBe(true);
  expect(gates[0]!.isUnderOverride('over.test')).toBe(true);
  await new Promise((r) => setTimeout(r, 50));
  await gates[1]!.check(`${vh.origin('over.test')}/open`);
  expect(gates[1]!.isUnderOverride('over.test')).toBe(true);
});

it("a gate given the Redis stores (spread, or the store alone) paces on the fleet's limiter", async () => {
  const s = stores[0]!;
  const spread = new RobotsGate({ userAgent: UA, ...s });
  const storeOnly = new RobotsGate({ userAgent: UA, store: s.store });
  expect(spread.limiter).toBe(s.limiter);
  expect(storeOnly.limiter).toBe(s.limiter);
  await Promise.all([spread.close(), storeOnly.close()]);
});

it('a new run fetches its own robots.txt (keys under the run, with a TTL) unless both share policies', async () => {
  const runPrefix = `rg-test-${randomUUID()}:`;
  const opened: RedisStores[] = [];
  const gateFor = async (run: string, sharePolicies?: boolean) => {
    const s = await createRedisStores(process.env.REDIS_URL!, { prefix: runPrefix, run, sharePolicies, pollMs: 20 });
    opened.push(s);
    return new RobotsGate({ userAgent: UA, store: s.store, resolve: vh.resolve, timeoutMs: 5000 });
  };
  const made: RobotsGate[] = [];
  try {
    const url = `${vh.origin('runs.test')}/open`;
    for (const run of ['x', 'y']) {
      const g = await gateFor(run);
      made.push(g);
      await g.check(url);
    }
    expect(vh.requests('runs.test', '/robots.txt')).toHaveLength(2);
    for (const run of ['s1', 's2']) {
      const g = await gateFor(run, true);
      made.push(g);
      await g.check(url);
    }
    expect(vh.requests('runs.test', '/robots.txt')).toHaveLength(3);
    const redis = opened[0]!.connection.client;
    const runKeys = await redis.keys(`${runPrefix}run:x:*`);
    expect(runKeys).toEqual([`${runPrefix}run:x:policy:${vh.origin('runs.test')}`]);
    expect(await redis.pttl(runKeys[0]!)).toBeGreaterThan(0);
    expect(await redis.exists(`${runPrefix}policy:${vh.origin('runs.test')}`)).toBe(1);
  } finally {
    await Promise.all(made.map((g) => g.close()));
    await Promise.all(opened.map((s) => s.close()));
    await deleteKeys(runPrefix);
  }
});
