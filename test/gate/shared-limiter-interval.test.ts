// Two gates on one limiter keep one clock per host even when they know different intervals: the
// second gate's first request (its own robots.txt, asked under its floor: it cannot know the
// Crawl-delay before it has the file) still waits the Crawl-delay the first gate's page was
// sent under. Gaps measured at the server: request start minus the previous response's end.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { MemoryRateLimiter, RobotsGate } from '../../src/index.js';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import { deleteKeys } from '../stores/redis-test-keys.js';

const UA = 'ClockBot/1.0';
const CD = 'User-agent: *\nCrawl-delay: 0.6\n';
let vh: VirtualHosts;
const prefix = `rg-test-${randomUUID()}:`;

beforeAll(async () => {
  vh = await startVirtualHosts({ 'mem.test': site(CD), 'fleet.test': site(CD) });
});
afterAll(async () => {
  await vh?.close();
  await deleteKeys(prefix);
});

function gaps(host: string): { path: string; gap: number | null }[] {
  const log = vh.requests(host).slice().sort((a, b) => a.startedAt - b.startedAt);
  return log.map((e, i) => ({ path: e.path, gap: i === 0 ? null : e.startedAt - log[i - 1]!.endedAt! }));
}

async function twoGates(host: string, g1: RobotsGate, g2: RobotsGate): Promise<void> {
  try {
    expect((await g1.fetch(`${vh.origin(host)}/p1`)).status).toBe(200);
    expect((await g2.fetch(`${vh.origin(host)}/p2`)).status).toBe(200);
  } finally {
    await Promise.all([g1.close(), g2.close()]);
  }
  const seen = gaps(host);
  expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/p1', '/robots.txt', '/p2']);
  // Every gap, g2's robots.txt after g1's page included, at least the Crawl-delay.
  for (const s of seen.slice(1)) expect(s.gap!, s.path).toBeGreaterThanOrEqual(600);
}

const opts = { userAgent: UA, resolve: [] as string[], timeoutMs: 5000, minIntervalMs: 100, jitter: 0 };

it('two gates on one MemoryRateLimiter: the second one’s robots.txt waits the first one’s Crawl-delay', async () => {
  const limiter = new MemoryRateLimiter();
  const g1 = new RobotsGate({ ...opts, resolve: vh.resolve, limiter });
  const g2 = new RobotsGate({ ...opts, resolve: vh.resolve, limiter });
  await twoGates('mem.test', g1, g2);
});

it('two gates on createRedisStores (one prefix, each its own run and robots.txt): the same', async () => {
  const opened: RedisStores[] = [];
  try {
    for (const run of ['a', 'b']) opened.push(await createRedisStores(process.env.REDIS_URL!, { prefix, run, pollMs: 20 }));
    const g1 = new RobotsGate({ ...opts, resolve: vh.resolve, ...opened[0]! });
    const g2 = new RobotsGate({ ...opts, resolve: vh.resolve, ...opened[1]! });
    await twoGates('fleet.test', g1, g2);
  } finally {
    await Promise.all(opened.map((s) => s.close()));
  }
});
