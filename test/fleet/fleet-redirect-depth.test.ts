// A fleet's redirect chain stops at the redirect limit whichever worker takes each hop, and every
// target's row names its parent: the worker that scheduled a target recorded how it came to be in
// Redis, where the worker that takes it reads it (an endless redirect generator was followed for
// ever when the two workers took turns).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openAudit } from '../../src/audit/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

let v: VirtualHosts;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-fleet-redirect-'));
const run = `redirect-depth-${process.pid}-${Date.now()}`;
beforeAll(async () => {
  assertBuilt();
  v = await startVirtualHosts({
    'chain.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      const n = Number(/^\/h(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
      if (Number.isInteger(n)) return void res.writeHead(302, { location: `/h${n + 1}` }).end();
      res.writeHead(404).end();
    },
  });
});
afterAll(async () => {
  await v?.close();
  await deleteKeys(`robots-gate:run:${run}:`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('two workers: the chain stops after 5 hops, each target a redirect row with its parent', async () => {
  const out = path.join(dir, 'out');
  const list = `${v.origin('chain.test')}/h0\n`;
  const worker = (name: string) =>
    runCli(['crawl', '-', '--user-agent', 'T', '--out', out, '--min-interval', '150', '--redis', redisUrl(), '--run', run, '--worker', name, '--resolve', v.resolve[0]!], { stdin: list, timeoutMs: 60_000 });
  const [a, b] = await Promise.all([worker('w1'), worker('w2')]);
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  expect(v.requests('chain.test').filter((r) => r.path !== '/robots.txt').map((r) => r.path)).toEqual(['/h0', '/h1', '/h2', '/h3', '/h4', '/h5']);
  const audit = openAudit(out);
  const rows = audit.attempts().filter((r) => r.url.includes('/h'));
  audit.close();
  const byPath = new Map(rows.map((r) => [new URL(r.url).pathname, r]));
  expect(byPath.get('/h0')).toMatchObject({ kind: 'page', parentUrl: null });
  for (let i = 1; i <= 5; i++) expect(byPath.get(`/h${i}`), `/h${i}`).toMatchObject({ kind: 'redirect', parentUrl: `${v.origin('chain.test')}/h${i - 1}` });
}, 90_000);
