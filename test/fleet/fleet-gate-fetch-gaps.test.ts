// Two pipeline processes written as the README's fleet section shows (a gate given the Redis
// store alone, and one given `...createRedisStores(...)`), gate.fetch to one host: every
// request, robots.txt included, keeps the host's interval from every other, whichever process
// sent it. Gaps are measured at the server, from a response's end to the next request's start.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl, uniquePrefix } from '../stores/redis-test-keys.js';
import { assertBuilt } from '../cli/run-cli.js';

const FLOOR_MS = 500;
const HOST = `pace${process.pid}.test`;
const prefix = uniquePrefix('gate-fetch-gaps');
let hosts: VirtualHosts;

beforeAll(async () => {
  assertBuilt();
  hosts = await startVirtualHosts({ [HOST]: site('User-agent: *\nAllow: /\n', () => 'page') });
});
afterAll(async () => {
  await hosts?.close();
  await deleteKeys(prefix);
});

function child(mode: 'store' | 'spread', urls: string[]): Promise<{ code: number | null; stderr: string }> {
  const script = path.resolve('test/fleet/gate-fetch-child.mjs');
  const args = [script, mode, redisUrl(), 'gaps', prefix, String(FLOOR_MS), hosts.resolve[0]!, ...urls];
  const p = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

it('two processes gate.fetch one host through the Redis stores: the interval holds between them', async () => {
  const o = hosts.origin(HOST);
  const exits = await Promise.all([child('store', [`${o}/a1`, `${o}/a2`]), child('spread', [`${o}/b1`, `${o}/b2`])]);
  for (const e of exits) expect(e, e.stderr).toEqual({ code: 0, stderr: '' });
  const log = hosts.requests(HOST).slice().sort((a, b) => a.startedAt - b.startedAt);
  // One robots.txt fetch between them, four pages.
  expect(log.map((r) => r.path).sort()).toEqual(['/a1', '/a2', '/b1', '/b2', '/robots.txt']);
  const gaps = log.slice(1).map((r, i) => ({ path: r.path, gap: r.startedAt - log[i]!.endedAt! }));
  // Date.now() in the clients and the server's clock differ by under a millisecond.
  expect(gaps.filter((g) => g.gap < FLOOR_MS - 1), JSON.stringify(gaps)).toEqual([]);
}, 60_000);
