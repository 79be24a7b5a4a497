// The policy store's wake-ups survive a Redis restart: its subscriber re-subscribes itself (with a
// handler: ioredis's own re-subscribe left its command's promise unhandled, and a connection
// closed before Redis answered it killed the process), so a waiter on another client wakes when
// the load it waits for is stored, not at its next poll.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import type { PolicyRecord } from '../../src/stores/types.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let redis: OwnRedis;
const opened: RedisStores[] = [];
beforeAll(async () => {
  redis = await startOwnRedis();
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await redis.stop();
});

const record = (origin: string, body: string): PolicyRecord => {
  const fetchedAt = Date.now();
  return { origin, robotsUrl: `${origin}/robots.txt`, finalUrl: `${origin}/robots.txt`, kind: 'parsed', status: 200, body, sha256: `sha-${body}`, fetchedAt, expiresAt: fetchedAt + 60_000 };
};

it('after a restart, a waiter wakes when the load it waits for is stored, not at its next poll', async () => {
  const [a, b] = [await createRedisStores(redis.url, { pollMs: 5_000 }), await createRedisStores(redis.url, { pollMs: 5_000 })];
  opened.push(a, b);
  // Both subscribe (each store subscribes at its first single flight).
  await a.store.singleFlight('http://warm.test', async () => record('http://warm.test', 'w'), 5_000);
  await b.store.singleFlight('http://warm2.test', async () => record('http://warm2.test', 'w'), 5_000);
  await redis.stop();
  await redis.restart();
  await sleep(1_500); // both reconnect
  let release!: () => void;
  const loading = a.store.singleFlight('http://o.test', () => new Promise<PolicyRecord>((r) => (release = () => r(record('http://o.test', 'one')))), 5_000);
  await sleep(200);
  const started = Date.now();
  const waiting = b.store.singleFlight('http://o.test', async () => record('http://o.test', 'two'), 5_000);
  await sleep(300);
  release();
  await loading;
  const got = await waiting;
  expect(got.body).toBe('one');
  expect(Date.now() - started).toBeLessThan(2_500);
}, 30_000);
