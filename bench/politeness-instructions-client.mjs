// One door of the politeness bench's instruction count, run under valgrind --tool=callgrind by
// bench/politeness.bench.mjs: warm up, then N sequential warm requests through `door` (plain
// undici fetch, gate.fetch, or gate.fetch with politeness: false) to the site of
// bench/politeness-site.mjs at PORT, 100 hosts in turn. The bench runs it with N = 0 and N > 0;
// the difference over N is the door's instructions a request, start-up and warm-up cancelled.
// Usage: node bench/politeness-instructions-client.mjs DOOR N PORT
import { fetch as undiciFetch } from 'undici';
import { RobotsGate, MemoryRateLimiter, createResolvingAgent } from '../dist/index.js';

const [door, n, port] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const hosts = Array.from({ length: 100 }, (_, i) => `warm${i}.bench.test`);
const urls = hosts.map((h) => `http://${h}:${port}/doc`);
const dispatcher = createResolvingAgent(hosts.map((h) => `${h}:${port}:127.0.0.1`));
const gate = new RobotsGate({ userAgent: UA, dispatcher, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });
const off = new RobotsGate({ userAgent: UA, dispatcher, politeness: false });
const doors = {
  plain: (u) => undiciFetch(u, { dispatcher, headers: { 'user-agent': UA } }),
  gated: (u) => gate.fetch(u),
  off: (u) => off.fetch(u),
};
const f = doors[door];
// The warm-up: robots.txt of every host cached, the code optimised.
for (let i = 0; i < 300 + n; i++) await (await f(urls[i % urls.length])).arrayBuffer();
await gate.close();
await off.close();
await dispatcher.close();
