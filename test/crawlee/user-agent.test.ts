// The gate's User-Agent is the header of every request a gated Crawlee HTTP crawler sends:
// robots.txt, pages, each redirect hop (same host and cross-origin), sendRequest. Without the
// override got-scraping sends a generated browser's User-Agent, new per request.
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BasicCrawler, CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { gateCrawler } from '../../src/crawlee/index.js';
import { startVirtualHosts, site, type HostHandler, type VirtualHosts } from '../helpers/hosts.js';
import { HEADERS } from '../helpers/crawler-headers.js';

const H = '127.0.0.1';
const UA = HEADERS.gptbot;

log.setLevel(LogLevel.ERROR);
const config = () => new Configuration({ persistStorage: false, storageClientOptions: { persistStorage: false }, purgeOnStart: true });

/** Every request's headers as the server got them. */
const sent: { origin: string; path: string; headers: http.IncomingHttpHeaders }[] = [];
const recording = (name: string, handler: HostHandler): HostHandler => (req, res) => {
  sent.push({ origin: name, path: req.url ?? '/', headers: req.headers });
  return handler(req, res);
};

let a: VirtualHosts; // /hop redirects on the same host, /away to the other origin
let b: VirtualHosts;
beforeAll(async () => {
  b = await startVirtualHosts({ [H]: recording('b', site('User-agent: *\nAllow: /\n')) });
  a = await startVirtualHosts({
    [H]: recording('a', (req, res) => {
      const p = req.url ?? '/';
      if (p === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      if (p === '/hop') return void res.writeHead(302, { location: '/hop2' }).end();
      if (p === '/hop2') return void res.writeHead(301, { location: '/landed.html' }).end();
      if (p === '/away') return void res.writeHead(307, { location: `${b.origin(H)}/there.html` }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${p}</title>`);
    }),
  });
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const seen = (origin?: string) => sent.filter((r) => !origin || r.origin === origin).map((r) => `${r.origin}${r.path} ${r.headers['user-agent']}`);

describe("a gated crawler sends the gate's User-Agent", () => {
  test('CheerioCrawler: robots.txt, pages and every redirect hop carry it, even over a User-Agent the request names', async () => {
    sent.length = 0;
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
    try {
      const handled: string[] = [];
      const crawler = new CheerioCrawler({ maxConcurrency: 4, requestHandler: async ({ request }) => void handled.push(request.loadedUrl!) }, config());
      gateCrawler(crawler, gate);
      await crawler.run([
        `${a.origin(H)}/one.html`,
        `${a.origin(H)}/two.html`,
        `${a.origin(H)}/hop`,
        `${a.origin(H)}/away`,
        { url: `${a.origin(H)}/named.html`, headers: { 'User-Agent': 'SomethingElse/2.0' } },
      ]);
      expect(handled.sort()).toEqual(
        [`${a.origin(H)}/one.html`, `${a.origin(H)}/two.html`, `${a.origin(H)}/landed.html`, `${b.origin(H)}/there.html`, `${a.origin(H)}/named.html`].sort(),
      );
      expect(seen().sort()).toEqual(
        ['a/away', 'a/hop', 'a/hop2', 'a/landed.html', 'a/named.html', 'a/one.html', 'a/robots.txt', 'a/two.html', 'b/robots.txt', 'b/there.html'].map((p) => `${p} ${UA}`),
      );
      // No generated browser headers beside it (client hints would claim a Chrome the UA does not).
      expect(sent.flatMap((r) => Object.keys(r.headers).filter((k) => k.startsWith('sec-ch-ua')))).toEqual([]);
    } finally {
      await gate.close();
    }
  });

  test("BasicCrawler's sendRequest carries it on each hop", async () => {
    sent.length = 0;
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
    try {
      const bodies: string[] = [];
      const crawler = new BasicCrawler({ requestHandler: async ({ sendRequest }) => void bodies.push((await sendRequest()).body) }, config());
      gateCrawler(crawler, gate);
      await crawler.run([`${a.origin(H)}/hop`]);
      expect(bodies).toEqual(['<!doctype html><title>/landed.html</title>']);
      expect(seen()).toEqual([`a/robots.txt ${UA}`, `a/hop ${UA}`, `a/hop2 ${UA}`, `a/landed.html ${UA}`]);
    } finally {
      await gate.close();
    }
  });
});
