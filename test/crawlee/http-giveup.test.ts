// An HttpCrawler request that its navigation timeout abandons while it waits for its host's slot
// is never sent: Crawlee does not cancel the request it gave up, and the wait went on and sent it
// after the run had ended, to nobody.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { gateCrawler } from '../../src/crawlee/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

const H = '127.0.0.1';
log.setLevel(LogLevel.OFF);
let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({
    [H]: (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
    },
  });
});
afterAll(() => v?.close());

test('a request given up while it waits for its slot never reaches the server', async () => {
  const gate = new RobotsGate({ userAgent: 'GiveUpBot/1.0' });
  const failed: string[] = [];
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: 4,
      maxRequestRetries: 0,
      navigationTimeoutSecs: 1,
      requestHandler: async () => {},
      failedRequestHandler: async ({ request }) => void failed.push(new URL(request.url).pathname),
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  // Each URL after the first waits 1.5 s or more for the host: past the 1 s the crawler allows.
  gateCrawler(crawler, gate, { minIntervalMs: 1_500, jitter: 0 });
  try {
    await crawler.run([1, 2, 3, 4].map((i) => `${v.origin(H)}/p${i}`));
    const ended = performance.timeOrigin + performance.now();
    await new Promise((r) => setTimeout(r, 6_000));
    const pages = v.requests(H).filter((r) => r.path !== '/robots.txt');
    expect(failed.length).toBeGreaterThanOrEqual(3);
    // What was sent, was sent while the crawler still waited for it.
    expect(pages.filter((r) => r.startedAt > ended).map((r) => r.path)).toEqual([]);
    expect(pages.length).toBe(4 - failed.length);
  } finally {
    await gate.close();
  }
}, 60_000);
