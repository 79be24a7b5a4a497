// README's "Crawling as a library", as a new user wrote it: the audit had no run row (only the
// CLI wrote one), and a host's `remaining` came out negative.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CrawlJob, HttpTransport, MemoryFrontier, RobotsGate, SqliteAuditSink, openAudit } from '../../src/index.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

let server: VirtualHosts | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('CrawlJob as a library (README example)', () => {
  it("stats say when each host's robots.txt was fetched and the interval that spaced its one URL from it", async () => {
    server = await startVirtualHosts({ 'one.test': site('User-agent: *\nAllow: /\n'), 'slow.test': site('User-agent: *\nCrawl-delay: 0.4\n') });
    const v = server;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-newuser-'));
    const urls = [`${v.origin('one.test')}/a`, `${v.origin('slow.test')}/a`];
    const gate = new RobotsGate({ userAgent: 'MyBot/1.0 (+https://example.com/bot)', resolve: v.resolve });
    const frontier = new MemoryFrontier({ minIntervalMs: 150, concurrency: 16 });
    await frontier.add(urls.map((url) => ({ url, host: new URL(url).host })));
    const audit = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: path.join(dir, 'out'), runId: 'run-1' });
    const { stats } = await job.run();
    audit.close();
    await gate.close();
    // No expect() told the job its hosts: each was 0 ms / null, its robots.txt time unknown.
    const one = stats.hosts.get(new URL(urls[0]!).host)!;
    const slow = stats.hosts.get(new URL(urls[1]!).host)!;
    expect([one.maxIntervalMs, one.maxIntervalReason, typeof one.robotsAt]).toEqual([150, 'floor', 'number']);
    expect([slow.maxIntervalMs, slow.maxIntervalReason, typeof slow.robotsAt]).toEqual([400, 'crawl-delay', 'number']);
  });

  it('records its run (start and end) in the audit, and ends with no host remaining below or above 0', async () => {
    server = await startVirtualHosts({ 'a.test': site('User-agent: *\nDisallow: /private\n'), 'b.test': site('User-agent: *\nAllow: /\n') });
    const v = server;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-newuser-'));
    const urls = ['/ok', '/private/1', '/private/2', '/private/3', '/ok2'].map((p) => v.origin('a.test') + p).concat(`${v.origin('b.test')}/x`);

    const gate = new RobotsGate({ userAgent: 'MyBot/1.0 (+https://example.com/bot)', resolve: v.resolve });
    const frontier = new MemoryFrontier({ minIntervalMs: 20, concurrency: 16 });
    await frontier.add(urls.map((url) => ({ url, host: new URL(url).host })));
    const audit = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: path.join(dir, 'out'), runId: 'run-1' });
    const { stats, status } = await job.run();
    audit.close();
    await gate.close();

    expect(status).toBe('completed');
    expect(stats.outcomes).toMatchObject({ fetched: 3, blocked: 3 });
    for (const h of stats.hosts.values()) expect([h.host, h.remaining]).toEqual([h.host, 0]);

    const a = openAudit(dir);
    const runs = a.runs();
    a.close();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runId: 'run-1', status: 'completed', userAgent: 'MyBot/1.0 (+https://example.com/bot)' });
    expect(runs[0]!.endedAt).not.toBeNull();
  });

  it('counts what is left of each host while it runs (remaining as the queue holds it)', async () => {
    server = await startVirtualHosts({ 'a.test': site('User-agent: *\nDisallow: /private\n') });
    const v = server;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-newuser-'));
    const urls = ['/1', '/private/1', '/2', '/3'].map((p) => v.origin('a.test') + p);
    const gate = new RobotsGate({ userAgent: 'MyBot/1.0', resolve: v.resolve });
    const frontier = new MemoryFrontier({ minIntervalMs: 150, jitter: 0 });
    await frontier.add(urls.map((url) => ({ url, host: new URL(url).host })));
    const audit = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: path.join(dir, 'out'), runId: 'run-2' });
    const seen: number[] = [];
    const poll = setInterval(() => {
      const h = job.stats().hosts.get(new URL(urls[0]!).host);
      if (h) seen.push(h.remaining);
    }, 20);
    await job.run();
    clearInterval(poll);
    audit.close();
    await gate.close();
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(0);
    // After the first page: /private/1 blocked at once, /2 and /3 left.
    expect(seen).toContain(2);
    expect(job.stats().hosts.get(new URL(urls[0]!).host)!.remaining).toBe(0);
  });
});
