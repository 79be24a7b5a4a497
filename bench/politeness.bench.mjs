// Politeness bench: what waiting for a host's slot costs the doors.
// 1. A warm gate.fetch on a host whose slot is open (interval 0, robots.txt cached) against a
//    plain undici fetch through the same dispatcher, the same loopback server, the same run:
//    the gate's decision and the slot take/release on top of the request. Target: under 5 %.
// 2. A gate.fetch loop over 1,000 hosts at once, 3 pages each, the default 2,000 ms floor, no jitter: every gap
//    measured at the server (request start minus the previous response's end, per host) must be
//    at least the bound and within 2 % of it. Peer: hand-written per-host loops (fetch, sleep the
//    interval), measured the same way; it keeps no robots.txt and no single clock.
import http from 'node:http';
import { fetch as undiciFetch } from 'undici';
import { RobotsGate, MemoryRateLimiter, createResolvingAgent } from '../dist/index.js';

const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

async function server() {
  const log = new Map();
  const page = 'x'.repeat(2_000);
  const s = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const entry = { path: req.url, start: now(), end: 0 };
    let list = log.get(host);
    if (!list) log.set(host, (list = []));
    list.push(entry);
    if (req.url === '/robots.txt') {
      entry.end = now();
      return void res.end('User-agent: *\nDisallow: /private\n');
    }
    entry.end = now();
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  s.keepAliveTimeout = 60_000;
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { port: s.address().port, log, close: () => new Promise((r) => (s.closeAllConnections(), s.close(r))) };
}

async function overhead(port) {
  // Requests go round 100 hosts: each finds its host's slot open (its interval, 0 here, passed
  // long ago), as a crawler's next request to a host usually does.
  const hosts = Array.from({ length: 100 }, (_, i) => `warm${i}.bench.test`);
  const urls = hosts.map((h) => `http://${h}:${port}/doc`);
  const dispatcher = createResolvingAgent(hosts.map((h) => `${h}:${port}:127.0.0.1`));
  const gate = new RobotsGate({ userAgent: UA, dispatcher, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });
  const N = 3_000;
  const plain = async () => {
    for (let i = 0; i < N; i++) await (await undiciFetch(urls[i % urls.length], { dispatcher, headers: { 'user-agent': UA } })).arrayBuffer();
  };
  const unpaced = new RobotsGate({ userAgent: UA, dispatcher, politeness: false });
  const gated = async () => {
    for (let i = 0; i < N; i++) await (await gate.fetch(urls[i % urls.length])).arrayBuffer();
  };
  const gatedOff = async () => {
    for (let i = 0; i < N; i++) await (await unpaced.fetch(urls[i % urls.length])).arrayBuffer();
  };
  await plain();
  await gated();
  await gatedOff();
  // Alternate rounds so drift on a shared machine falls on both sides; keep each side's best.
  let bestPlain = Infinity;
  let bestGated = Infinity;
  let bestOff = Infinity;
  for (let round = 0; round < 5; round++) {
    let t = performance.now();
    await plain();
    bestPlain = Math.min(bestPlain, performance.now() - t);
    t = performance.now();
    await gated();
    bestGated = Math.min(bestGated, performance.now() - t);
    t = performance.now();
    await gatedOff();
    bestOff = Math.min(bestOff, performance.now() - t);
  }
  await gate.close();
  await unpaced.close();
  await dispatcher.close();
  return { n: N, plainUs: (bestPlain * 1000) / N, gatedUs: (bestGated * 1000) / N, offUs: (bestOff * 1000) / N };
}

function gapStats(log, hosts, bound, skipRobots) {
  const ratios = [];
  for (const h of hosts) {
    const list = (log.get(h) ?? []).filter((e) => !skipRobots || e.path !== '/robots.txt').sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) ratios.push((list[i].start - list[i - 1].end) / bound);
  }
  ratios.sort((a, b) => a - b);
  const q = (p) => ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))];
  return {
    gaps: ratios.length,
    min: ratios[0],
    median: q(0.5),
    p99: q(0.99),
    max: ratios[ratios.length - 1],
    within: ratios.filter((r) => r >= 1 && r <= 1.02).length / ratios.length,
  };
}

export async function overheadOnly() {
  const srv = await server();
  try {
    return await overhead(srv.port);
  } finally {
    await srv.close();
  }
}

async function manyHosts(srv, prefix, run) {
  const HOSTS = 1_000;
  const PER_HOST = 3;
  const BOUND = 2_000;
  const hosts = Array.from({ length: HOSTS }, (_, i) => `${prefix}${i}.bench.test`);
  const resolve = hosts.map((h) => `${h}:${srv.port}:127.0.0.1`);
  const t0 = performance.now();
  await run(hosts, resolve, PER_HOST, BOUND);
  const ms = performance.now() - t0;
  return { hosts: HOSTS, perHost: PER_HOST, bound: BOUND, ms, hostNames: hosts };
}

export async function run() {
  const srv = await server();
  try {
    const o = await overhead(srv.port);
    console.log(`warm gate.fetch on an open slot (robots.txt cached, 100 hosts in turn), ${o.n} sequential requests, best of 5 alternating rounds\n`);
    console.log('| door | µs / request | vs plain fetch |');
    console.log('| --- | ---: | ---: |');
    console.log(`| plain undici fetch, same dispatcher (peer) | ${o.plainUs.toFixed(1)} | 1.000 |`);
    console.log(`| gate.fetch, politeness: false (check, hop-by-hop redirects) | ${o.offUs.toFixed(1)} | ${(o.offUs / o.plainUs).toFixed(3)} |`);
    console.log(`| gate.fetch (the same + slot take/release) | ${o.gatedUs.toFixed(1)} | ${(o.gatedUs / o.plainUs).toFixed(3)} (${((o.gatedUs / o.plainUs - 1) * 100).toFixed(1)} %) |`);
    console.log(`\nthe slot itself: ${(o.gatedUs - o.offUs).toFixed(1)} µs a request, ${(((o.gatedUs - o.offUs) / o.plainUs) * 100).toFixed(1)} % of a plain fetch`);

    const rg = await manyHosts(srv, 'g', async (hosts, resolve, perHost, bound) => {
      const gate = new RobotsGate({ userAgent: UA, resolve, minIntervalMs: bound, jitter: 0, limiter: new MemoryRateLimiter(), maxOrigins: 2_000, timeoutMs: 60_000 });
      await Promise.all(hosts.map(async (h) => {
        for (let i = 0; i < perHost; i++) await (await gate.fetch(`http://${h}:${srv.port}/doc/${i}`)).arrayBuffer();
      }));
      await gate.close();
    });
    const peer = await manyHosts(srv, 'p', async (hosts, resolve, perHost, bound) => {
      const dispatcher = createResolvingAgent(resolve);
      await Promise.all(hosts.map(async (h) => {
        for (let i = 0; i < perHost; i++) {
          if (i > 0) await sleep(bound);
          await (await undiciFetch(`http://${h}:${srv.port}/doc/${i}`, { dispatcher, headers: { 'user-agent': UA } })).arrayBuffer();
        }
      }));
      await dispatcher.close();
    });
    const g = gapStats(srv.log, rg.hostNames, rg.bound, false);
    const p = gapStats(srv.log, peer.hostNames, peer.bound, true);
    console.log(`\n${rg.hosts} hosts at once, ${rg.perHost} pages each (robots.txt first for the gate), ${rg.bound} ms floor, no jitter; gap / bound at the server\n`);
    console.log('| loop | gaps | min | median | p99 | max | within [1, 1.02] | makespan |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const row = (name, s, ms) => `| ${name} | ${s.gaps} | ${s.min.toFixed(3)} | ${s.median.toFixed(3)} | ${s.p99.toFixed(3)} | ${s.max.toFixed(3)} | ${(s.within * 100).toFixed(1)} % | ${(ms / 1000).toFixed(2)} s |`;
    console.log(row('gate.fetch loop (robots.txt spaced too)', g, rg.ms));
    console.log(row('hand-written fetch + sleep loops (peer)', p, peer.ms));
  } finally {
    await srv.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
