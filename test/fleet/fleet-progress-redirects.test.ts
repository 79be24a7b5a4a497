// A fleet worker's progress counts the redirect targets it settles as URLs of the run, as a crawl
// without a fleet does: no line may say more done than there are (it said "this worker settled
// 20 URLs of the run's 10" for a list of 10 that each redirect once).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

let v: VirtualHosts;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-fleet-progress-'));
const run = `progress-redirects-${process.pid}-${Date.now()}`;
const HOSTS = ['a.test', 'b.test'];
beforeAll(async () => {
  assertBuilt();
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    // Each page of the list moved once: its target is a URL of the run the list does not name.
    if (req.url?.startsWith('/p')) return void res.writeHead(301, { location: `/moved${req.url}` }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${req.url}`);
  };
  v = await startVirtualHosts(Object.fromEntries(HOSTS.map((h) => [h, handler])));
});
afterAll(async () => {
  await v?.close();
  await deleteKeys(`robots-gate:run:${run}:`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a fleet worker never reports more settled than the run has URLs, redirect targets counted in', async () => {
  const list = HOSTS.flatMap((h) => [1, 2, 3, 4, 5].map((i) => `${v.origin(h)}/p${i}`)).join('\n') + '\n';
  const r = await runCli(
    ['crawl', '-', '--user-agent', 'ProgBot/1.0', '--out', path.join(dir, 'out'), '--min-interval', '100', '--progress-interval', '100',
      '--redis', redisUrl(), '--run', run, '--worker', 'w1', ...v.resolve.flatMap((x) => ['--resolve', x])],
    { stdin: list, timeoutMs: 60_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('progress: '));
  for (const l of lines) {
    const m = /^progress: (\d+)\/(\d+) done/.exec(l);
    if (m) expect(Number(m[1]), l).toBeLessThanOrEqual(Number(m[2]));
  }
  // The one worker settled all 20: the list's 10 and their 10 targets, named apart.
  expect(lines.at(-1)).toBe("progress: this worker settled 20 URLs (10 of the run's 10 listed, 10 redirect targets), 0 blocked (final)");
}, 90_000);
