// A site that answers 429 with a long Retry-After: the crawl holds the host, and its progress
// must say how long, not "ETA ~0 s".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptRows } from '../helpers/attempt-rows.js';
import { CrawlJob } from '../../src/crawl/crawl-job.js';
import { HttpTransport } from '../../src/crawl/http-transport.js';
import { RobotsGate } from '../../src/gate/gate.js';
import { MemoryFrontier } from '../../src/politeness/memory-frontier.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-backoff-'));
let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({
    'busy.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200).end('User-agent: *\nAllow: /\n');
      res.writeHead(429, { 'retry-after': '3000' }).end('later');
    },
  });
});
afterAll(async () => {
  await v.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a host backed off by Retry-After', () => {
  it('counts in the ETA from when it may be asked again', async () => {
    // The gate's floor as the frontier's, as the CLI builds them: the robots.txt request's interval
    // holds for the request after it (the limiter keeps the interval of the last lease).
    const gate = new RobotsGate({ userAgent: 'T', resolve: v.resolve, minIntervalMs: 10 });
    const frontier = new MemoryFrontier({ minIntervalMs: 10 });
    const ac = new AbortController();
    const audit = new AttemptRows();
    const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: dir, runId: 't', signal: ac.signal });
    const urls = ['/a', '/b'].map((p) => ({ url: `${v.origin('busy.test')}${p}`, host: `busy.test:${v.port}` }));
    await frontier.add(urls);
    job.expect(urls, 10);
    const running = job.run();
    for (let i = 0; i < 100 && audit.rows.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
    const eta = job.stats().etaMs;
    ac.abort();
    await running;
    await gate.close();
    expect(audit.rows[0]!.status).toBe(429);
    // Retry-After 3000 s: nothing is sent to the host for 50 minutes.
    expect(eta).toBeGreaterThan(2_900_000);
  });
});
