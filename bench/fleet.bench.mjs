// Fleet benchmark (issue 5):
//  1. lease round trips (acquire + release) per second through RedisRateLimiter from one
//     process, against a bare Redis lock (SET NX PX + DEL, no interval or Redis-clock logic)
//     and the in-process MemoryRateLimiter, measured side by side;
//  2. makespan of 1, 2 and 4 `robots-gate crawl --redis` workers over 50 local hosts with a
//     0.2 s Crawl-delay, against the politeness bound.
// Redis: REDIS_URL, else redis://127.0.0.1:6379. Every key lives under a fresh prefix, deleted
// at the end.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createRedisStores } from '../dist/stores/redis.js';
import { MemoryRateLimiter } from '../dist/stores/memory-rate-limiter.js';
import { createRedisFrontier } from '../dist/crawl/redis-frontier.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, '..', 'dist', 'cli', 'main.js');
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

const LEASE_SECONDS = 2; // per contender
const LOOPS = 1024; // concurrent acquire/release loops, each on its own host (a crawl has thousands)
const HOSTS = 50;
const URLS_PER_HOST = 8;
const DELAY_S = 0.2;
const PAGE_MS = 50; // server think time per page, so that a worker's concurrency matters
const CONCURRENCY = 4; // per worker

async function deleteKeys(prefix) {
  const c = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await c.del(...keys);
  } while (cursor !== '0');
  c.disconnect();
}

/** Run `once(i)` in LOOPS concurrent loops for LEASE_SECONDS; returns round trips per second. */
async function rate(once) {
  let n = 0;
  const until = performance.now() + LEASE_SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: LOOPS }, async (_, i) => {
      while (performance.now() < until) {
        await once(i);
        n++;
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

async function leaseRoundTrips() {
  const prefix = `rg-bench:${randomUUID().slice(0, 8)}:`;
  const stores = await createRedisStores(REDIS_URL, { prefix });
  const bare = new Redis(REDIS_URL);
  const memory = new MemoryRateLimiter();
  const rows = [];
  try {
    const viaLimiter = (limiter) => async (i) => {
      const r = await limiter.tryAcquire(`h${i}.test`, 0, 10_000);
      if (!r.ok) throw new Error('a free host was refused');
      await limiter.release(r.lease, Date.now());
    };
    // warm-up: scripts loaded, connections open
    await rate(viaLimiter(stores.limiter)).catch(() => {});
    const redisRate = await rate(viaLimiter(stores.limiter));
    const bareRate = await rate(async (i) => {
      const key = `${prefix}bare:h${i}.test`;
      if ((await bare.set(key, '1', 'PX', 10_000, 'NX')) !== 'OK') throw new Error('lock held');
      await bare.del(key);
    });
    const memRate = await rate(viaLimiter(memory));
    rows.push(['RedisRateLimiter (Lua, Redis TIME, interval + lease)', redisRate, redisRate / bareRate]);
    rows.push(['bare Redis lock (SET NX PX + DEL)', bareRate, 1]);
    rows.push(['MemoryRateLimiter (one process only)', memRate, memRate / bareRate]);
  } finally {
    await stores.close();
    bare.disconnect();
    await deleteKeys(prefix);
  }
  console.log(`Lease round trips (acquire + release) from one process, ${LOOPS} concurrent hosts, ${REDIS_URL}:\n`);
  console.log('| limiter | round trips/s | × bare Redis lock |');
  console.log('| --- | ---: | ---: |');
  for (const [name, r, x] of rows) console.log(`| ${name} | ${Math.round(r).toLocaleString('en')} | ${x.toFixed(2)} |`);
  const target = rows[0][1] >= 20_000 ? 'met' : 'NOT met';
  console.log(`\nTarget ≥ 20,000/s through RedisRateLimiter: ${target}.\n`);
}

function startHosts() {
  const names = Array.from({ length: HOSTS }, (_, i) => `h${i}.bench`);
  const log = []; // request start times (ms, performance clock)
  const server = http.createServer((req, res) => {
    log.push(performance.now());
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nCrawl-delay: ${DELAY_S}\nAllow: /\n`);
      return;
    }
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${req.url}</p>`), PAGE_MS);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, names, log, port: server.address().port })));
}

function runWorker(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`worker exited ${code}: ${err.slice(-500)}`));
    });
  });
}

async function makespans() {
  if (!existsSync(cli)) {
    console.log('Makespan: skipped (dist/cli/main.js not built).');
    return;
  }
  const { server, names, log, port } = await startHosts();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-fleet-bench-'));
  const list = path.join(dir, 'urls.txt');
  const lines = [];
  for (let p = 0; p < URLS_PER_HOST; p++) for (const h of names) lines.push(`http://${h}:${port}/p${p}`);
  writeFileSync(list, lines.join('\n') + '\n');
  const resolve = names.flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]);
  // Per host, requests go one at a time: URLs × page time plus (URLs - 1) × Crawl-delay is the
  // least any fleet can take.
  const boundMs = URLS_PER_HOST * PAGE_MS + (URLS_PER_HOST - 1) * DELAY_S * 1000;
  const rows = [];
  try {
    for (const n of [1, 2, 4]) {
      const run = `bench-${n}-${randomUUID().slice(0, 8)}`;
      log.length = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: n }, (_, w) =>
          runWorker([
            'crawl', list,
            '--user-agent', 'FleetBench/1.0',
            '--out', path.join(dir, `out-${n}`),
            '--redis', REDIS_URL,
            '--run', run,
            '--worker', `w${w}`,
            '--concurrency', String(CONCURRENCY),
            '--min-interval', '0',
            ...resolve,
          ]),
        ),
      );
      const ms = performance.now() - t0;
      // The crawl itself, as the servers saw it: first request start to last request start.
      const span = log.length ? Math.max(...log) - Math.min(...log) : NaN;
      rows.push([n, ms, span]);
      await deleteKeys(`robots-gate:run:${run}:`);
      await deleteKeys(`robots-gate:*.bench:${port}`); // the hosts' shared policies and rates
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `Makespan: ${HOSTS} local hosts × ${URLS_PER_HOST} URLs, Crawl-delay ${DELAY_S} s, pages answered in ${PAGE_MS} ms, ` +
      `${CONCURRENCY} requests in flight per worker (process start and Redis included):\n`,
  );
  console.log('| workers | makespan, processes (s) | × 1 worker | crawl span at the servers (s) | × 1 worker | span × politeness bound |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [n, ms, span] of rows) {
    console.log(
      `| ${n} | ${(ms / 1000).toFixed(2)} | ${(ms / rows[0][1]).toFixed(2)} | ${(span / 1000).toFixed(2)} | ${(span / rows[0][2]).toFixed(2)} | ${(span / boundMs).toFixed(2)} |`,
    );
  }
  console.log(
    `\nPoliteness bound: ${(boundMs / 1000).toFixed(2)} s (no fleet may finish sooner). The span runs from the first request ` +
      `(a robots.txt) to the last one's start, so it may fall just under the bound by one page's answer time; process start-up ` +
      `(Node, modules, Redis connection) is in the makespan only.`,
  );
}

/** The same fleet without process costs: N frontier workers in this process, each with its
 *  own Redis connection, fetching from the same local hosts with plain fetch(). */
async function inProcessMakespans() {
  const { server, names, log, port } = await startHosts();
  const prefix = `rg-bench:${randomUUID().slice(0, 8)}:`;
  const items = [];
  for (let p = 0; p < URLS_PER_HOST; p++) for (const h of names) items.push({ url: `http://127.0.0.1:${port}/${h}/p${p}`, host: h });
  const boundMs = URLS_PER_HOST * PAGE_MS + (URLS_PER_HOST - 1) * DELAY_S * 1000;
  const rows = [];
  try {
    for (const n of [1, 2, 4]) {
      const workers = [];
      for (let w = 0; w < n; w++) {
        const stores = await createRedisStores(REDIS_URL, { prefix });
        const frontier = createRedisFrontier(stores.connection, { prefix, run: `r${n}`, worker: `w${w}`, minIntervalMs: DELAY_S * 1000, jitter: 0, concurrency: CONCURRENCY });
        workers.push({ stores, frontier });
      }
      await Promise.all(workers.map(({ frontier }) => frontier.add(items)));
      log.length = 0;
      const t0 = performance.now();
      await Promise.all(workers.map(({ frontier }) => drive(frontier)));
      rows.push([n, performance.now() - t0]);
      for (const { stores, frontier } of workers) {
        await frontier.close();
        await stores.close();
      }
    }
  } finally {
    server.close();
    await deleteKeys(prefix);
  }
  console.log(`\nThe same, frontier workers in one process (no process start, no gate or audit: coordination alone):\n`);
  console.log('| workers | makespan (s) | × 1 worker | × politeness bound |');
  console.log('| ---: | ---: | ---: | ---: |');
  for (const [n, ms] of rows) console.log(`| ${n} | ${(ms / 1000).toFixed(2)} | ${(ms / rows[0][1]).toFixed(2)} | ${(ms / boundMs).toFixed(2)} |`);
}

/** One worker's loop, as the crawl job runs it: take, fetch, complete; sleep when told. */
async function drive(frontier) {
  const inflight = new Set();
  let wake;
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await frontier.take();
    if (r.kind === 'drained') break;
    if (r.kind === 'wait') {
      const ms = r.retryAt === null ? 1_000 : Math.max(0, r.retryAt - Date.now());
      await new Promise((res) => {
        wake = res;
        setTimeout(res, ms);
      });
      continue;
    }
    const p = (async () => {
      const res = await fetch(r.item.url);
      await res.arrayBuffer();
      await frontier.complete(r, Date.now());
    })().finally(() => {
      inflight.delete(p);
      wake?.();
    });
    inflight.add(p);
  }
  await Promise.all(inflight);
}

export async function run() {
  await leaseRoundTrips();
  await makespans();
  await inProcessMakespans();
}
