// A worker killed mid-run (SIGKILL: no goodbye) leaves its leased URLs to the others once its
// leases lapse; the run still completes with every allowed URL fetched and every interval kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';
import { pageCounts, robotsFetches, shortGaps, startFleet, startWorker, type Fleet } from './fleet-harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet('kill');
});
afterAll(async () => {
  await fleet?.close();
  for (const pattern of fleet?.keyPatterns ?? []) await deleteKeys(pattern);
});

describe('a worker killed mid-run', () => {
  it('leaves its URLs to the others, who finish the run', async () => {
    // Short leases so that the killed worker's URLs come back within the test's time.
    const env = { ROBOTS_GATE_FLEET_LEASE_MS: '2000' };
    const workers = ['w1', 'w2', 'w3', 'w4'].map((w) => startWorker(fleet, redisUrl(), w, env));
    const pages = () => fleet.hosts.log.filter((r) => r.path !== '/robots.txt').length;
    for (let i = 0; i < 300 && pages() < 60; i++) await sleep(50);
    expect(pages()).toBeGreaterThanOrEqual(60);
    workers[0]!.child.kill('SIGKILL');
    const killedAt = pages();

    const [killed, ...rest] = await Promise.all(workers.map((w) => w.exit));
    expect(killed!.signal).toBe('SIGKILL');
    for (const [i, e] of rest.entries()) expect(e, workers[i + 1]!.stderr()).toEqual({ code: 0, signal: null });
    expect(pages()).toBeGreaterThan(killedAt); // there was work left when it died

    const counts = pageCounts(fleet);
    expect([...fleet.allowed].filter((u) => !counts.has(u)), 'allowed URLs never fetched').toEqual([]);
    expect([...counts.keys()].filter((u) => !fleet.allowed.has(u))).toEqual([]);
    // Only a request on the wire when its worker died may be sent again: one per host at most.
    const twice = [...counts.entries()].filter(([, n]) => n > 1);
    expect(twice.length).toBeLessThanOrEqual(fleet.names.length);
    expect(twice.every(([, n]) => n === 2)).toBe(true);
    expect(shortGaps(fleet)).toEqual([]);
    expect([...robotsFetches(fleet).values()]).toEqual(fleet.names.map(() => 1));
  }, 90_000);
});
