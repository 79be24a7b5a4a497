// A gated Crawlee browser crawler keeps each host's interval for every navigation its pages make,
// measured at the servers: the navigation Crawlee makes (one slot, taken before it), each redirect
// hop against its own host (a → b → a), an iframe on the page's own host and a popup on it. Two
// loopback servers on 127.0.0.1, each its own host (its own port); subresources are not spaced.
import type http from 'node:http';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import { createRedisStores } from '../../src/stores/redis.js';
import { gateCrawler, type GateCrawlerOptions } from '../../src/crawlee/index.js';
import { startVirtualHosts, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl, uniquePrefix } from '../stores/redis-test-keys.js';
import { crawlers } from './crawlers.js';

log.setLevel(LogLevel.ERROR);
const UA = 'CrawleePaceBot/1.0 (+https://example.test/bot)';
const H = '127.0.0.1';
/** The interval each host is kept to (ms). */
const INTERVAL_MS = 1_000;
/** Clock slack between the server's stamps and the limiter's (both this process's, rounded). */
const SLACK_MS = 5;

function site(other: () => string) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '/';
    const html = (body: string) => void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${path}</title>${body}`);
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    // a/go → b/hop → a/landing
    if (path === '/go') return void res.writeHead(302, { location: `${other()}/hop` }).end();
    if (path === '/hop') return void res.writeHead(302, { location: `${other()}/landing` }).end();
    if (path === '/framed') return html('<link rel="stylesheet" href="/s.css"><iframe src="/inner"></iframe>');
    if (path === '/opener') return html(`<script>window.open('/popped')</script>`);
    if (path === '/s.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('p{}');
    html(`<p>${path}</p>`);
  };
}

/** Subresources (the browser's own favicon fetch among them): gated, not spaced. */
const subresource = (r: LoggedRequest) => r.path === '/s.css' || r.path === '/favicon.ico';


interface Setup {
  gate: RobotsGate;
  options: GateCrawlerOptions;
  close(): Promise<void>;
}

/** Whose terms space the hosts: the gate's own (its floor) in memory or on Redis (a fleet's
 *  limiter), or gateCrawler's (a floor and a limiter of its own, the gate's floor 0). */
const terms: Array<[string, () => Promise<Setup>]> = [
  ["the gate's terms", async () => {
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: INTERVAL_MS, jitter: 0, limiter: new MemoryRateLimiter() });
    return { gate, options: {}, close: () => gate.close() };
  }],
  ["the gate's terms on a Redis limiter", async () => {
    const prefix = uniquePrefix('crawlee-browser-pace');
    const stores = await createRedisStores(redisUrl(), { prefix });
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: INTERVAL_MS, jitter: 0, limiter: stores.limiter });
    return {
      gate,
      options: {},
      close: async () => {
        await gate.close();
        await stores.close();
        await deleteKeys(prefix);
      },
    };
  }],
  ["gateCrawler's own limiter and floor", async () => {
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });
    return { gate, options: { limiter: new MemoryRateLimiter(), minIntervalMs: INTERVAL_MS, jitter: 0 }, close: () => gate.close() };
  }],
];

/** Resolves once `s` has seen `path` answered (the handler waits for a frame's or popup's document). */
async function answered(s: VirtualHosts, path: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!s.requests(H, path).some((r) => r.endedAt !== undefined) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

let a: VirtualHosts;
let b: VirtualHosts;
beforeEach(async () => {
  let bOrigin = '';
  a = await startVirtualHosts({ [H]: site(() => bOrigin) });
  b = await startVirtualHosts({ [H]: site(() => a.origin(H)) });
  bOrigin = b.origin(H);
});
afterEach(async () => {
  await Promise.all([a.close(), b.close()]);
});

/** The gaps (ms) between each response's end and the next request's arrival at `s`, in order, with the request paths. */
function gaps(s: VirtualHosts, skip: (r: LoggedRequest) => boolean): Array<{ path: string; ms: number }> {
  const sent = s.requests(H).filter((r) => !skip(r)).sort((x, y) => x.startedAt - y.startedAt);
  return sent.slice(1).map((r, i) => ({ path: `${sent[i]!.path} → ${r.path}`, ms: r.startedAt - sent[i]!.endedAt! }));
}

describe.each(crawlers)('%s', (_name, make) => {
  test.each(terms)('every navigation keeps its host\'s interval (%s): the redirect a → b → a, an iframe, a popup', async (termsName, setup) => {
    const { gate, options, close } = await setup();
    const crawler = make({
      maxConcurrency: 1,
      requestHandler: async ({ request }: { request: { url: string } }) => {
        // Keep the page open until its frame's or popup's document has been answered.
        const path = new URL(request.url).pathname;
        if (path === '/framed') await answered(a, '/inner');
        if (path === '/opener') await answered(a, '/popped');
      },
    });
    gateCrawler(crawler, gate, options);
    try {
      await crawler.run([`${b.origin(H)}/first`, `${a.origin(H)}/go`, `${a.origin(H)}/framed`, `${a.origin(H)}/opener`]);
      expect(a.requests(H).filter((r) => !subresource(r)).map((r) => r.path)).toEqual(['/robots.txt', '/go', '/landing', '/framed', '/inner', '/opener', '/popped']);
      expect(b.requests(H).filter((r) => !subresource(r)).map((r) => r.path)).toEqual(['/robots.txt', '/first', '/hop']);
      // Subresources are gated and counted, not spaced: the stylesheet came with its page.
      const framed = a.requests(H, '/framed')[0]!;
      expect(a.requests(H, '/s.css')[0]!.startedAt - framed.endedAt!).toBeLessThan(INTERVAL_MS);
      // robots.txt requests take the gate's own slot: on the crawler's separate limiter they are not counted.
      const gatesOwn = termsName.startsWith("the gate's terms");
      const skip = (r: LoggedRequest) => subresource(r) || (!gatesOwn && r.path === '/robots.txt');
      const all = [...gaps(a, skip), ...gaps(b, skip)];
      if (process.env.PACE_GAPS) console.log(termsName, all.map((g) => `${g.path} ${Math.round(g.ms)}`).join(', '));
      expect(all.filter((g) => g.ms < INTERVAL_MS - SLACK_MS)).toEqual([]);
      // One slot for the navigation Crawlee makes, not one in the hook and another in the page gate.
      if (gatesOwn) expect(a.requests(H, '/go')[0]!.startedAt - a.requests(H, '/robots.txt')[0]!.endedAt!).toBeLessThan(1.8 * INTERVAL_MS);
    } finally {
      await close();
    }
  }, 60_000);
});
