// A CheerioCrawler's request gives its host's slot back however Crawlee drops it, so the host's
// next URLs are not held up and nothing is sent that nobody waits for:
// - a response Crawlee refuses after it arrived (its content-type check, which throws in a
//   post-navigation hook without reading the body): the unread body held the slot until the
//   socket timed out, and the host's next URLs timed out behind it;
// - a request its navigation timeout abandons while it waits for the slot: Crawlee does not
//   cancel it, and the wait went on and sent it after the run had ended, to nobody.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { gateCrawler } from '../../src/crawlee/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

const H = '127.0.0.1';
const INTERVAL_MS = 300;
log.setLevel(LogLevel.OFF);
let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({
    [H]: (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      // Busy without saying for how long: the gate's defaultBackoffMs applies.
      if (req.url === '/busy-bare') return void res.writeHead(503, { 'content-type': 'text/html' }).end('<p>busy</p>');
      if (req.url === '/plain.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(200_000));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
    },
  });
});
afterAll(() => v?.close());

test("a refused content type's unread body does not keep the host's slot", async () => {
  const gate = new RobotsGate({ userAgent: 'RefuseBot/1.0' });
  const handled: string[] = [];
  const failed: string[] = [];
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: 3,
      maxRequestRetries: 0,
      navigationTimeoutSecs: 5,
      requestHandlerTimeoutSecs: 5,
      requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
      failedRequestHandler: async ({ request }) => void failed.push(new URL(request.url).pathname),
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  gateCrawler(crawler, gate, { minIntervalMs: INTERVAL_MS, jitter: 0 });
  try {
    await crawler.run([`${v.origin(H)}/plain.txt`, `${v.origin(H)}/t2.html`, `${v.origin(H)}/t3.html`]);
    expect(failed).toEqual(['/plain.txt']);
    expect(handled.sort()).toEqual(['/t2.html', '/t3.html']);
    const log = v.requests(H).filter((r) => r.path !== '/robots.txt');
    expect(log.map((r) => r.path)).toEqual(['/plain.txt', '/t2.html', '/t3.html']);
    // The next request after the refused one waits the interval, not a socket's timeout.
    expect(log[1]!.startedAt - log[0]!.startedAt).toBeLessThan(INTERVAL_MS + 3_000);
  } finally {
    await gate.close();
  }
}, 60_000);

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
    await crawler.run([1, 2, 3, 4].map((i) => `${v.origin(H)}/g${i}.html`));
    const ended = performance.timeOrigin + performance.now();
    await new Promise((r) => setTimeout(r, 6_000));
    const pages = v.requests(H).filter((r) => r.path.startsWith('/g'));
    expect(failed.length).toBeGreaterThanOrEqual(3);
    // What was sent, was sent while the crawler still waited for it.
    expect(pages.filter((r) => r.startedAt > ended).map((r) => r.path)).toEqual([]);
    expect(pages.length).toBe(4 - failed.length);
  } finally {
    await gate.close();
  }
}, 60_000);

test("a 503 without Retry-After backs the host off for the gate's defaultBackoffMs, not a fixed 10 s", async () => {
  const BACKOFF_MS = 1_500;
  const gate = new RobotsGate({ userAgent: 'BackoffBot/1.0', minIntervalMs: INTERVAL_MS, jitter: 0, defaultBackoffMs: BACKOFF_MS });
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: 1,
      maxRequestRetries: 0,
      requestHandler: async () => {},
      failedRequestHandler: async () => {},
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  gateCrawler(crawler, gate);
  try {
    await crawler.run([`${v.origin(H)}/busy-bare`, `${v.origin(H)}/after.html`]);
    const busy = v.requests(H, '/busy-bare')[0]!;
    const after = v.requests(H, '/after.html')[0]!;
    const g = after.startedAt - busy.endedAt!;
    expect(g).toBeGreaterThanOrEqual(BACKOFF_MS - 5);
    expect(g).toBeLessThan(BACKOFF_MS + 1_500);
  } finally {
    await gate.close();
  }
}, 60_000);
