// The doors the politeness bench compares on a warm host, for its timed rounds and its instruction
// count alike: a plain undici fetch, gate.fetch, and gate.fetch with politeness: false, all through
// one dispatcher to the site of bench/politeness-site.mjs at `port`. Requests go round 100 hosts:
// each finds its host's slot open (its interval, 0 here, passed long ago), as a crawler's next
// request to a host usually does.
import { fetch as undiciFetch } from 'undici';
import { RobotsGate, MemoryRateLimiter, createResolvingAgent } from '../dist/index.js';

export const UA = 'BenchBot/1.0 (+https://bench.example/bot)';

export function warmDoors(port) {
  const hosts = Array.from({ length: 100 }, (_, i) => `warm${i}.bench.test`);
  const urls = hosts.map((h) => `http://${h}:${port}/doc`);
  const dispatcher = createResolvingAgent(hosts.map((h) => `${h}:${port}:127.0.0.1`));
  const gate = new RobotsGate({ userAgent: UA, dispatcher, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });
  const unpaced = new RobotsGate({ userAgent: UA, dispatcher, politeness: false });
  const doors = {
    plain: (u) => undiciFetch(u, { dispatcher, headers: { 'user-agent': UA } }),
    gated: (u) => gate.fetch(u),
    off: (u) => unpaced.fetch(u),
  };
  const close = async () => {
    await gate.close();
    await unpaced.close();
    await dispatcher.close();
  };
  return { urls, doors, close };
}
