// Two `robots-gate crawl --redis` workers and a gate.fetch loop on a RedisRateLimiter, all on the
// same hosts: every request, robots.txt included (first load, --recheck-after refetches, a
// robots.txt redirected into another host), keeps the host's interval from every other one,
// whichever process sent it. Gaps are measured at the server, from a response's end to the next
// request's start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { createRedisStores, type RedisStores } from '../../src/stores/redis.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';
import { startWorker, USER_AGENT, type Fleet } from './fleet-harness.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FLOOR_MS = 400;
const tag = `rgap${process.pid}`;
const FROM = `from.${tag}.test`;
const TO = `to.${tag}.test`;

let hosts: VirtualHosts;
let dir: string;
let stores: RedisStores | undefined;
const run = `${tag}-${Date.now()}`;

beforeAll(async () => {
  hosts = await startVirtualHosts({
    // Its robots.txt lives on the other host: each (re)fetch of it is a request to TO.
    [FROM]: (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: `${hosts.origin(TO)}/robots.txt` }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`from ${req.url}`);
    },
    [TO]: site('User-agent: *\nAllow: /\n'),
  });
  dir = mkdtempSync(join(tmpdir(), 'rg-fleet-robots-gaps-'));
});
afterAll(async () => {
  await stores?.close();
  await hosts?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const p of [`robots-gate:run:${run}:`, `robots-gate:*.${tag}.test:`]) await deleteKeys(p);
});

/** Per host, each request's start less the previous response's end (server clock), in order. */
function gaps(host: string): { path: string; gap: number }[] {
  const log = hosts.requests(host).slice().sort((a, b) => a.startedAt - b.startedAt);
  return log.slice(1).map((r, i) => ({ path: r.path, gap: r.startedAt - log[i]!.endedAt! }));
}

describe('a fleet and a gate.fetch loop on one host', () => {
  it('never send two requests to a host closer than its interval, robots.txt requests included', async () => {
    const urls = [
      ...[0, 1, 2, 3].map((i) => `${hosts.origin(FROM)}/f${i}`),
      ...[0, 1, 2, 3, 4, 5].map((i) => `${hosts.origin(TO)}/t${i}`),
    ];
    const listFile = join(dir, 'urls.txt');
    writeFileSync(listFile, urls.join('\n') + '\n');
    const fleet = { listFile, dir, run, hosts } as unknown as Fleet;
    // --recheck-after 50: nearly every check refetches robots.txt, FROM's through a hop into TO.
    const extra = ['--min-interval', String(FLOOR_MS), '--recheck-after', '50'];
    const workers = ['a', 'b'].map((w) => startWorker(fleet, redisUrl(), w, {}, 90_000, extra));

    // A pipeline in this process fetches from TO on the fleet's limiter meanwhile.
    stores = await createRedisStores(redisUrl(), { run });
    const gate = new RobotsGate({ userAgent: USER_AGENT, resolve: hosts.resolve, limiter: stores.limiter, minIntervalMs: FLOOR_MS });
    for (let i = 0; i < 5; i++) {
      const res = await gate.fetch(`${hosts.origin(TO)}/loop${i}`);
      await res.arrayBuffer();
    }
    await gate.close();

    const exits = await Promise.all(workers.map((w) => w.exit));
    for (const [i, e] of exits.entries()) expect(e, workers[i]!.stderr()).toEqual({ code: 0, signal: null });
    const to = hosts.requests(TO);
    // FROM's robots.txt fetches reached TO, the loop's requests did too, and both workers crawled.
    expect(to.filter((r) => r.path === '/robots.txt').length).toBeGreaterThan(3);
    expect(to.filter((r) => r.path.startsWith('/loop'))).toHaveLength(5);
    expect(to.filter((r) => r.path.startsWith('/t'))).toHaveLength(6);
    for (const host of [FROM, TO]) {
      // Date.now() in the clients and the server's clock differ by under a millisecond.
      const short = gaps(host).filter((g) => g.gap < FLOOR_MS - 1);
      expect(short, `${host}: ${JSON.stringify(gaps(host))}`).toEqual([]);
    }
  }, 120_000);
});
