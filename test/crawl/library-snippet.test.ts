// README's "Crawling as a library", as printed (a gate, a MemoryFrontier with its floor, CrawlJob
// over HttpTransport, no other option): the server sees the floor kept after the robots.txt
// request and across a same-host redirect, which the job schedules as a request of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CrawlJob, HttpTransport, MemoryFrontier, RobotsGate, SqliteAuditSink } from '../../src/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';

const FLOOR_MS = 300;
let v: VirtualHosts;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-lib-snippet-'));
  v = await startVirtualHosts({
    'bo.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      if (req.url === '/r') return void res.writeHead(301, { location: '/two' }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
    },
  });
});
afterAll(async () => {
  await v?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the floor holds after robots.txt and across a redirect; the target is counted', async () => {
  const urls = [`${v.origin('bo.test')}/one`, `${v.origin('bo.test')}/r`];
  const gate = new RobotsGate({ userAgent: 'MyBot/1.0 (+https://example.com/bot)', resolve: v.resolve });
  const frontier = new MemoryFrontier({ minIntervalMs: FLOOR_MS, concurrency: 16 });
  await frontier.add(urls.map((url) => ({ url, host: new URL(url).host })));
  // No folder made first: the sink makes out/ (README's snippet names out/audit.sqlite from nothing).
  const out = path.join(dir, 'out');
  const audit = new SqliteAuditSink(path.join(out, 'audit.sqlite'));
  const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: out, runId: 'run-1' });
  const { stats } = await job.run();
  audit.close();
  await gate.close();
  const log = v.requests('bo.test');
  expect(log.map((r) => r.path)).toEqual(['/robots.txt', '/one', '/r', '/two']);
  for (let i = 1; i < log.length; i++) expect(log[i]!.startedAt - log[i - 1]!.endedAt!, log[i]!.path).toBeGreaterThanOrEqual(FLOOR_MS - 5);
  expect(stats.redirectTargets).toBe(1);
  // The audit beside the documents, where `robots-gate audit out/` looks (README's snippet).
  const read = await runCli(['audit', out]);
  expect(read.code, read.stderr).toBe(0);
  expect(read.stdout).toContain('run-1');
});

test('an option given as undefined keeps its default (the floor after robots.txt, the redirect limit)', async () => {
  const urls = [`${v.origin('bo.test')}/one`];
  const gate = new RobotsGate({ userAgent: 'MyBot/1.0 (+https://example.com/bot)', resolve: v.resolve });
  const frontier = new MemoryFrontier({ minIntervalMs: FLOOR_MS, concurrency: 16 });
  await frontier.add(urls.map((url) => ({ url, host: new URL(url).host })));
  const audit = new SqliteAuditSink(path.join(dir, 'audit-undefined.sqlite'));
  const before = v.requests('bo.test').length;
  const given: { minIntervalMs?: number; maxRedirects?: number } = {};
  const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: path.join(dir, 'out2'), runId: 'run-2', minIntervalMs: given.minIntervalMs, maxRedirects: given.maxRedirects });
  await job.run();
  audit.close();
  await gate.close();
  const log = v.requests('bo.test').slice(before);
  expect(log.map((r) => r.path)).toEqual(['/robots.txt', '/one']);
  expect(log[1]!.startedAt - log[0]!.endedAt!).toBeGreaterThanOrEqual(FLOOR_MS - 5);
});
