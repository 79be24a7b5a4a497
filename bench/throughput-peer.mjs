// The peer of bench/throughput.bench.mjs: a plain undici request() loop at a given concurrency over
// a URL list, every host connected to one loopback address, bodies read and dropped. No robots.txt,
// no politeness, no audit, nothing saved: the network's own ceiling for this crawl.
// Usage: node bench/throughput-peer.mjs URLS_FILE CONCURRENCY ADDR PORT
import { readFileSync } from 'node:fs';
import { Agent, buildConnector, request } from 'undici';

const [file, concurrency, addr, port] = process.argv.slice(2);
const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const base = buildConnector({});
const dispatcher = new Agent({ connect: (opts, cb) => base({ ...opts, hostname: addr, port }, cb) });
let next = 0;
let ok = 0;
async function worker() {
  while (next < urls.length) {
    const url = urls[next++];
    const res = await request(url, { dispatcher, headers: { 'user-agent': 'PeerBot/1.0' } });
    await res.body.text();
    if (res.statusCode === 200) ok++;
  }
}
const t0 = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
console.log(JSON.stringify({ urls: urls.length, ok, ms: performance.now() - t0 }));
await dispatcher.close();
