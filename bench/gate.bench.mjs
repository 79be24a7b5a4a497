// Gate bench: warm gate.check() (the cost every request pays once an origin is cached), against
// the bare matchers it wraps, and heap per cached origin. A real robots.txt from the shared corpus
// is served from a loopback server in this process; the gate reaches it through `resolve`.
import http from 'node:http';
import os from 'node:os';
import { readFileSync, existsSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import robotsParser from 'robots-parser';
import { RobotsGate, createResolvingAgent } from '../dist/index.js';
import { parseRobotsTxt } from '../dist/parser/index.js';

const FILE = '/work/shared/corpus/robots/www.thenorthface.com.txt';
const FALLBACK = 'User-agent: *\nDisallow: /shop/OrderCalculate\nDisallow: /*?stop_mobi=\nDisallow: /*storeId=201*\nAllow: /shop/\n';
const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const BATCH = 10_000;
const BATCHES = 40;
const ORIGINS = 500;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

function urlsFor(text, origin) {
  const out = ['/', '/index.html', '/search?q=robots', '/images/logo.png', '/a/b/c/d/e/f.html'];
  const re = /^[ \t]*(?:dis)?allow[ \t]*:[ \t]*(\S+)/gim;
  let m;
  while ((m = re.exec(text)) && out.length < 32) {
    let p = m[1].replace(/\*/g, 'x').replace(/\$$/, '');
    if (!p.startsWith('/')) p = '/' + p;
    out.push(p, p + 'more/page.html');
  }
  return out.map((p) => origin + p);
}

/** Median µs per call over BATCHES batches of BATCH awaited calls, and calls/s over all of them. */
async function measureAsync(fn, urls) {
  const n = urls.length;
  for (let i = 0; i < BATCH; i++) await fn(urls[i % n]); // warm-up (JIT)
  const perCall = [];
  let total = 0;
  for (let b = 0; b < BATCHES; b++) {
    const t0 = performance.now();
    for (let i = 0; i < BATCH; i++) await fn(urls[i % n]);
    const ms = performance.now() - t0;
    total += ms;
    perCall.push((ms * 1000) / BATCH);
  }
  return summarise(perCall, total);
}

/** The same for a synchronous matcher, called the way its users call it (no await). */
function measureSync(fn, urls) {
  const n = urls.length;
  let sink = 0;
  for (let i = 0; i < BATCH; i++) if (fn(urls[i % n])) sink++;
  const perCall = [];
  let total = 0;
  for (let b = 0; b < BATCHES; b++) {
    const t0 = performance.now();
    for (let i = 0; i < BATCH; i++) if (fn(urls[i % n])) sink++;
    const ms = performance.now() - t0;
    total += ms;
    perCall.push((ms * 1000) / BATCH);
  }
  if (sink < 0) console.log(sink);
  return summarise(perCall, total);
}

function summarise(perCall, totalMs) {
  perCall.sort((a, b) => a - b);
  return { medianUs: perCall[Math.floor(perCall.length / 2)], bestUs: perCall[0], perSecond: (BATCH * BATCHES) / (totalMs / 1000) };
}

function heapUsed() {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function run() {
  const text = existsSync(FILE) ? readFileSync(FILE, 'utf8') : FALLBACK;
  const server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(text);
    else res.writeHead(200).end('page');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const hosts = Array.from({ length: ORIGINS }, (_, i) => `h${i}.bench.test`);
  const resolve = ['bench.test', ...hosts].map((h) => `${h}:${port}:127.0.0.1`);
  const origin = `http://bench.test:${port}`;
  const urls = urlsFor(text, origin);

  try {
    // Warm check.
    const gate = new RobotsGate({ userAgent: UA, resolve });
    await gate.check(urls[0]);
    const gateResult = await measureAsync((u) => gate.check(u), urls);
    const ours = parseRobotsTxt(text, { url: `${origin}/robots.txt` });
    const bare = measureSync((u) => ours.isAllowed(u, 'BenchBot'), urls);
    const peer = robotsParser(`${origin}/robots.txt`, text);
    const peerResult = measureSync((u) => peer.isAllowed(u, UA), urls);
    await gate.close();

    console.log(`Warm \`check()\` on ${FILE.split('/').pop()} (${Buffer.byteLength(text)} bytes), ${urls.length} URLs round-robin, \`gate.check\` awaited one after another, the bare matchers called synchronously; median of ${BATCHES} batches of ${BATCH.toLocaleString('en-US')}.\n`);
    console.log('| what | median µs/call | best batch µs/call | calls/s | vs robots-parser isAllowed (median) |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    const row = (name, r) =>
      console.log(
        `| ${name} | ${r.medianUs.toFixed(3)} | ${r.bestUs.toFixed(3)} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${(peerResult.medianUs / r.medianUs).toFixed(2)}× |`,
      );
    row('robots-gate `gate.check(url)` (cache, decision, stamp)', gateResult);
    row('robots-gate/parser `isAllowed` (bare matcher, no gate)', bare);
    row('robots-parser 3.0.1 `isAllowed` (bare matcher, no gate)', peerResult);
    console.log(`\nLoad average while measuring: ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores (the µs figures scale with it).`);
    console.log(`Target: under 2 µs median and at least 500,000 calls/s for \`gate.check\`: ${gateResult.medianUs < 2 && gateResult.perSecond >= 500_000 ? 'met' : 'NOT met'}.\n`);

    // Heap per cached origin: the same file served by ORIGINS host names.
    // The dispatcher is closed before measuring: idle keep-alive connections are not the cache.
    const agent = createResolvingAgent(resolve);
    const before = heapUsed();
    const many = new RobotsGate({ userAgent: UA, dispatcher: agent, maxOrigins: ORIGINS * 2 });
    for (let i = 0; i < hosts.length; i += 50) {
      await Promise.all(hosts.slice(i, i + 50).map((h) => many.check(`http://${h}:${port}/`)));
    }
    await agent.close();
    const gateHeap = (heapUsed() - before) / ORIGINS;
    await many.close();
    const peers = [];
    const beforePeer = heapUsed();
    for (const h of hosts) {
      const p = robotsParser(`http://${h}:${port}/robots.txt`, text);
      p.isAllowed(`http://${h}:${port}/`, UA);
      peers.push(p);
    }
    const peerHeap = (heapUsed() - beforePeer) / ORIGINS;
    console.log(`Heap per cached origin (${ORIGINS} origins serving that file; gate: parsed policy, stamp and the default memory store's record with the body text; connections closed):\n`);
    console.log('| what | KiB per origin | vs robots-parser |');
    console.log('| --- | ---: | ---: |');
    console.log(`| robots-gate, gate cache + store | ${(gateHeap / 1024).toFixed(1)} | ${(gateHeap / peerHeap).toFixed(2)}× |`);
    console.log(`| robots-parser 3.0.1, parsed object only | ${(peerHeap / 1024).toFixed(1)} | 1.00× |`);
    peers.length = 0;
  } finally {
    await new Promise((r) => server.close(r));
  }
}
