// A Crawlee browser request that times out while it waits for its host's slot (a long interval,
// a short handler timeout) must not take that slot when it comes: Crawlee closes the page but
// does not cancel its hooks, and a slot granted to a dead page was held for the limiter's whole
// lease (120 s), stalling the host for every request behind it.
import { afterEach, expect, test } from 'vitest';
import { log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import { gateCrawler } from '../../src/crawlee/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { crawlers } from './crawlers.js';

log.setLevel(LogLevel.OFF);
// Longer than Crawlee's limit on a request (its two timeouts of 1 s, plus its 10 s buffer).
const INTERVAL_MS = 13_000;
let v: VirtualHosts | undefined;
let gate: RobotsGate | undefined;
afterEach(async () => {
  await gate?.close();
  await v?.close();
});

test('a request that timed out waiting for its slot leaves the slot to the next request', async () => {
  v = await startVirtualHosts({
    '127.0.0.1': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>');
    },
  });
  const origin = v.origin('127.0.0.1');
  gate = new RobotsGate({ userAgent: 'TimeoutBot/1.0', minIntervalMs: INTERVAL_MS, jitter: 0, limiter: new MemoryRateLimiter() });
  const failed: string[] = [];
  const [, playwrightCrawler] = crawlers[0];
  const crawler = playwrightCrawler(
    {
      maxConcurrency: 3,
      maxRequestRetries: 0,
      navigationTimeoutSecs: 1,
      requestHandlerTimeoutSecs: 1,
      requestHandler: async () => {},
      failedRequestHandler: async ({ request }: { request: { url: string } }) => void failed.push(new URL(request.url).pathname),
    },
  );
  gateCrawler(crawler, gate);
  // robots.txt counts toward the interval: let it pass, so that only the second URL waits.
  await gate.check(`${origin}/`);
  await new Promise((r) => setTimeout(r, INTERVAL_MS + 200));
  await crawler.run([`${origin}/1`, `${origin}/2`]);
  // At least one of them waited behind the other for longer than Crawlee allows a request (both
  // may, on a loaded machine).
  expect(failed.length).toBeGreaterThanOrEqual(1);
  const before = v.requests('127.0.0.1');
  const lastEnd = Math.max(...before.map((r) => r.endedAt ?? r.startedAt));
  const probe = await gate.fetch(`${origin}/probe`);
  await probe.text();
  const probed = v.requests('127.0.0.1').find((r) => r.path === '/probe')!;
  // The interval after the last response, give or take a page's own end; not a dead page's lease.
  expect(probed.startedAt - lastEnd).toBeLessThan(INTERVAL_MS + 8_000);
}, 90_000);
