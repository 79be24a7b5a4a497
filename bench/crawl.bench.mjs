// Crawl bench: the makespan of a real crawl (gate, frontier, HTTP through loopback, documents
// saved, SQLite audit) over 20 local hosts with mixed Crawl-delays, against its politeness bound:
// the largest, over hosts, of URLs on the host × its interval. Global concurrency is not the limit
// here (32 in flight for 20 hosts), so the crawl should finish within 1.1 × the bound.
// Peer: hand-written per-host loops (fetch, then sleep the interval; no gate, no audit, nothing
// saved), all hosts in parallel: the least a polite crawl can take.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fetch as undiciFetch } from 'undici';
import { CrawlJob, HttpTransport, MemoryFrontier, RobotsGate, SqliteAuditSink, createResolvingAgent } from '../dist/index.js';

const HOSTS = 20;
const DELAYS = [undefined, 0.1, 0.2, 0.3, 0.5]; // seconds; undefined: the floor applies
const PER_HOST = [8, 10, 12, 10]; // URLs per host, cycled
const MIN_INTERVAL_MS = 100;
const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function plan() {
  return Array.from({ length: HOSTS }, (_, i) => {
    const delay = DELAYS[i % DELAYS.length];
    return { host: `h${i}.bench.test`, delay, n: PER_HOST[i % PER_HOST.length], intervalMs: Math.max((delay ?? 0) * 1000, MIN_INTERVAL_MS) };
  });
}

async function server(hosts) {
  const byHost = new Map(hosts.map((h) => [h.host, h]));
  const page = 'x'.repeat(8_000);
  const s = http.createServer((req, res) => {
    const h = byHost.get((req.headers.host ?? '').replace(/:\d+$/, ''));
    if (!h) return void res.writeHead(421).end();
    if (req.url === '/robots.txt') {
      return void res.end(`User-agent: *\nDisallow: /private\n${h.delay !== undefined ? `Crawl-delay: ${h.delay}\n` : ''}`);
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { port: s.address().port, close: () => new Promise((r) => (s.closeAllConnections(), s.close(r))) };
}

async function robotsGateCrawl(hosts, port) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-bench-crawl-'));
  const resolve = hosts.map((h) => `${h.host}:${port}:127.0.0.1`);
  // The gate's own floor is the crawl's, as the CLI sets it: the robots.txt request is spaced, and
  // the page after it waits, by the same interval (the gate's default is 2 s).
  const gate = new RobotsGate({ userAgent: UA, resolve, minIntervalMs: MIN_INTERVAL_MS });
  const frontier = new MemoryFrontier({ minIntervalMs: MIN_INTERVAL_MS, concurrency: 32 });
  const audit = new SqliteAuditSink(path.join(out, 'audit.sqlite'));
  const urls = hosts.flatMap((h) => Array.from({ length: h.n }, (_, i) => ({ url: `http://${h.host}:${port}/doc/${i}`, host: `${h.host}:${port}` })));
  await frontier.add(urls);
  const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: out, runId: 'bench' });
  job.expect(urls, MIN_INTERVAL_MS);
  const t0 = performance.now();
  const result = await job.run();
  const ms = performance.now() - t0;
  audit.close();
  await gate.close();
  fs.rmSync(out, { recursive: true, force: true });
  return { ms, fetched: result.stats.outcomes.fetched, hosts: result.stats.hosts };
}

async function handWritten(hosts, port) {
  const dispatcher = createResolvingAgent(hosts.map((h) => `${h.host}:${port}:127.0.0.1`));
  const t0 = performance.now();
  await Promise.all(
    hosts.map(async (h) => {
      for (let i = 0; i < h.n; i++) {
        if (i > 0) await sleep(h.intervalMs);
        const res = await undiciFetch(`http://${h.host}:${port}/doc/${i}`, { dispatcher, headers: { 'user-agent': UA } });
        await res.arrayBuffer();
      }
    }),
  );
  const ms = performance.now() - t0;
  await dispatcher.close();
  return { ms };
}

export async function run() {
  const hosts = plan();
  const srv = await server(hosts);
  try {
    const bound = Math.max(...hosts.map((h) => h.n * h.intervalMs));
    const tight = Math.max(...hosts.map((h) => (h.n - 1) * h.intervalMs));
    const peer = await handWritten(hosts, srv.port);
    const rg = await robotsGateCrawl(hosts, srv.port);
    const total = hosts.reduce((a, h) => a + h.n, 0);
    console.log(`${HOSTS} local hosts, ${total} URLs, Crawl-delays of none (100 ms floor + jitter) to 0.5 s, 32 in flight at most`);
    console.log(`politeness bound: max over hosts of URLs × interval = ${(bound / 1000).toFixed(2)} s (the waits alone: ${(tight / 1000).toFixed(2)} s)\n`);
    console.log('| crawler | makespan | / politeness bound | vs robots-gate |');
    console.log('| --- | ---: | ---: | ---: |');
    console.log(`| robots-gate crawl (gate, frontier, saved documents, SQLite audit) | ${(rg.ms / 1000).toFixed(2)} s | ${(rg.ms / bound).toFixed(3)} | 1.00 |`);
    console.log(`| hand-written per-host loops (no gate, no audit; peer) | ${(peer.ms / 1000).toFixed(2)} s | ${(peer.ms / bound).toFixed(3)} | ${(peer.ms / rg.ms).toFixed(2)} |`);
    if (rg.fetched !== total) console.log(`\nWARNING: robots-gate fetched ${rg.fetched} of ${total}`);
  } finally {
    await srv.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
