// Politeness bench: what waiting for a host's slot costs the doors.
// 1. A warm gate.fetch on a host whose slot is open (interval 0, robots.txt cached) against a
//    plain undici fetch through the same dispatcher, the same loopback site (in a process of its
//    own, so the CPU time read is the client's), the same run, in alternating batches:
//    the gate's decision and the slot take/release on top of the request. Target: under 5 % CPU
//    (the median of the rounds' own ratios).
// 2. A gate.fetch loop over 1,000 hosts at once, 3 pages each, the default 2,000 ms floor, no jitter: every gap
//    measured at the server (request start minus the previous response's end, per host) must be
//    at least the bound and within 2 % of it. Peer: hand-written per-host loops (fetch, sleep the
//    interval), measured the same way; it keeps no robots.txt and no single clock.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { fetch as undiciFetch } from 'undici';
import { RobotsGate, MemoryRateLimiter, createResolvingAgent } from '../dist/index.js';
import { UA, warmDoors } from './politeness-doors.mjs';

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
  const { urls, doors, close } = warmDoors(port);
  const names = Object.keys(doors);
  let j = 0;
  const batch = async (name, n) => {
    const door = doors[name];
    for (let i = 0; i < n; i++) await (await door(urls[j++ % urls.length])).arrayBuffer();
  };
  for (const k of names) await batch(k, 1_000);
  // Batches of 400, the doors in turn (order reversed every round): on a shared machine the load
  // falls on every door alike. CPU time is this process's alone (the site runs in its own). Each
  // figure is the median over rounds (a round another job slowed counts once); beside it the
  // median of the rounds' own ratios, which swings more under load.
  const B = 400;
  const R = 30;
  const wall = Object.fromEntries(names.map((k) => [k, []]));
  const cpu = Object.fromEntries(names.map((k) => [k, []]));
  for (let round = 0; round < R; round++) {
    for (const k of round % 2 ? names.slice().reverse() : names) {
      const c = process.cpuUsage();
      const t = performance.now();
      await batch(k, B);
      wall[k].push(((performance.now() - t) * 1000) / B);
      const d = process.cpuUsage(c);
      cpu[k].push((d.user + d.system) / B);
    }
  }
  await close();
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const per = (m) => Object.fromEntries(names.map((k) => [k, median(m[k])]));
  const ratio = (m) => Object.fromEntries(names.map((k) => [k, median(m[k].map((v, i) => v / m.plain[i]))]));
  return { n: B * R, wall: per(wall), cpu: per(cpu), wallRatio: ratio(wall), cpuRatio: ratio(cpu) };
}

/** The overhead rows' site, in a child process: its port, and how to stop it. */
async function childSite() {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./politeness-site.mjs', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`politeness-site exited ${code}`)));
  });
  return { port, close: () => new Promise((r) => (child.once('exit', r), child.stdin.end())) };
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

/**
 * Instructions a warm request costs each door, counted by callgrind in the client process (user
 * space; the site runs in its own, untraced): unlike CPU time, the count does not move with what
 * else the machine is doing. Null without valgrind.
 */
export async function instructionsPerRequest(n = 600) {
  if (!fs.existsSync('/usr/bin/valgrind')) return null;
  const site = await childSite();
  const client = fileURLToPath(new URL('./politeness-instructions-client.mjs', import.meta.url));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-callgrind-'));
  const count = (door, k) =>
    new Promise((resolve, reject) => {
      const out = path.join(tmp, `${door}.${k}.out`);
      execFile('/usr/bin/valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, client, door, String(k), String(site.port)], { maxBuffer: 1 << 24 }, (err, _stdout, stderr) => {
        const m = /Collected : (\d+)/.exec(String(stderr));
        if (err || !m) return reject(err ?? new Error(`callgrind gave no count: ${String(stderr).slice(-300)}`));
        resolve(Number(m[1]));
      });
    });
  try {
    const per = {};
    for (const door of ['plain', 'gated']) per[door] = ((await count(door, n)) - (await count(door, 0))) / n;
    return { n, per };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    await site.close();
  }
}

export async function overheadOnly() {
  const site = await childSite();
  try {
    return await overhead(site.port);
  } finally {
    await site.close();
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
    const o = await overheadOnly();
    console.log(`warm gate.fetch on an open slot (robots.txt cached, 100 hosts in turn), ${o.n} sequential requests per door in batches of 400, the doors in turn; the site in a process of its own; CPU and wall the median over the rounds\n`);
    console.log('| door | wall µs / request | vs plain | CPU µs / request (client) | vs plain | median of the rounds\' CPU ratios |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    const line = (name, k) => `| ${name} | ${o.wall[k].toFixed(1)} | ${(o.wall[k] / o.wall.plain).toFixed(3)} | ${o.cpu[k].toFixed(1)} | ${(o.cpu[k] / o.cpu.plain).toFixed(3)} | ${o.cpuRatio[k].toFixed(3)} |`;
    console.log(line('plain undici fetch, same dispatcher (peer)', 'plain'));
    console.log(line('gate.fetch, politeness: false (check, hop-by-hop redirects)', 'off'));
    console.log(line('gate.fetch (the same + slot take/release)', 'gated'));
    const pct = (r) => `${((r - 1) * 100).toFixed(1)} %`;
    console.log(`\ngate.fetch over plain fetch: ${pct(o.cpu.gated / o.cpu.plain)} CPU (median of round ratios ${pct(o.cpuRatio.gated)}; target under 5 %), ${pct(o.wall.gated / o.wall.plain)} wall; the slot itself: ${((o.cpu.gated - o.cpu.off) / o.cpu.plain * 100).toFixed(1)} % of a plain fetch's CPU`);
    const ins = await instructionsPerRequest();
    if (ins === null) console.log('\n(valgrind is not installed: no instruction count; apt-get install valgrind)');
    else {
      console.log(`\nThe same doors, instructions a warm request (callgrind, the client's user space; ${ins.n} requests less none, each door in a process of its own): a count the machine's load does not move, where the CPU times above swing by more than the difference; when the collector runs still moves it by a few per cent\n`);
      console.log('| door | instructions / request | vs plain |');
      console.log('| --- | ---: | ---: |');
      for (const [name, k] of [['plain undici fetch, same dispatcher (peer)', 'plain'], ['gate.fetch', 'gated']]) {
        console.log(`| ${name} | ${Math.round(ins.per[k]).toLocaleString('en-US')} | ${(ins.per[k] / ins.per.plain).toFixed(3)} |`);
      }
      console.log(`\ngate.fetch over plain fetch: ${pct(ins.per.gated / ins.per.plain)} instructions (target under 5 %)`);
    }

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
