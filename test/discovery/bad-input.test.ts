// Hostile and broken sitemaps against real loopback servers: each is reported, keeps what parsed,
// costs what the caps allow, and never throws out of the iteration.
import { afterEach, describe, expect, it } from 'vitest';
import { RobotsGate, discoverSitemaps, type DiscoverOptions, type DiscoveredUrl, type SitemapReport } from '../../src/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { MIB_OF_SPACES_GZ, NS, gzipMember, sitemapindex, stream, urlset, type Sent } from './sitemap-server.js';

const UA = 'SitemapBot/1.0';
let server: VirtualHosts | undefined;
let gate: RobotsGate | undefined;
afterEach(async () => {
  await gate?.close();
  await server?.close();
  gate = server = undefined;
});

type Route = (res: import('node:http').ServerResponse, o: string) => void | Promise<void>;

/** One host `a.test` whose robots.txt names `sitemaps`, serving `routes`. */
async function host(sitemaps: string[], routes: Record<string, Route>): Promise<{ v: VirtualHosts; o: string }> {
  let o = '';
  const v = await startVirtualHosts({
    'a.test': async (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200).end(`User-agent: *\nAllow: /\n${sitemaps.map((s) => `Sitemap: ${o}${s}\n`).join('')}`);
      const r = routes[req.url ?? ''];
      if (!r) return void res.writeHead(404).end('no');
      await r(res, o);
    },
  });
  o = v.origin('a.test');
  server = v;
  return { v, o };
}

async function discover(v: VirtualHosts, options: DiscoverOptions = {}) {
  gate = new RobotsGate({ userAgent: UA, resolve: v.resolve });
  const reports: SitemapReport[] = [];
  const d = discoverSitemaps(gate, v.origin('a.test'), { minIntervalMs: 0, onSitemap: (r) => reports.push(r), ...options });
  const urls: DiscoveredUrl[] = [];
  for await (const u of d) urls.push(u);
  return { urls, reports, stats: d.stats };
}

const xml = (body: string): Route => (res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(body);

describe('discoverSitemaps: bad input', () => {
  it('a sitemap in another encoding than UTF-8 (ISO-8859-1 declared, UTF-16 with its byte-order mark): read as it says, and said', async () => {
    const { v, o } = await host(['/latin1.xml', '/utf16.xml'], {
      '/latin1.xml': (res, o) =>
        void res.writeHead(200, { 'content-type': 'application/xml' }).end(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="${NS}"><url><loc>${o}/caf\u00e9</loc></url></urlset>`, 'latin1')),
      '/utf16.xml': (res, o) =>
        void res.writeHead(200, { 'content-type': 'application/xml' }).end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="UTF-16"?><urlset xmlns="${NS}"><url><loc>${o}/na\u00efve</loc></url></urlset>`, 'utf16le')])),
    });
    const { urls, reports } = await discover(v);
    // Not caf%EF%BF%BD: the URL the file names, percent-encoded as a URL has it.
    expect(urls.map((u) => u.url).sort()).toEqual([`${o}/caf%C3%A9`, `${o}/na%C3%AFve`]);
    const byUrl = new Map(reports.map((r) => [new URL(r.url).pathname, r]));
    expect(byUrl.get('/latin1.xml')!.problems).toContain('encoding="ISO-8859-1": read as windows-1252, though sitemaps.org requires UTF-8');
    expect(byUrl.get('/utf16.xml')!.problems).toContain('a UTF-16LE byte-order mark: read as utf-16le, though sitemaps.org requires UTF-8');
  });

  it('malformed XML: reported, and the entries parsed around the fault are kept', async () => {
    const { v, o } = await host(['/broken.xml'], {
      '/broken.xml': (res, o) =>
        xml(`<urlset xmlns="${NS}"><url><loc>${o}/1</loc></url><url><loc>${o}/2?a=1&b=2</loc></url><url><loc>${o}/3</loc></url></urlset oops><url><loc>${o}/4`)(res, o),
    });
    const { urls, reports } = await discover(v);
    expect(urls.map((u) => u.url)).toEqual([`${o}/1`, `${o}/2?a=1&b=2`, `${o}/3`]);
    expect(reports[0]!.outcome).toBe('read');
    expect(reports[0]!.problems.length).toBeGreaterThan(0);
  });

  it('an HTML page served as the sitemap: format html, no URLs, said so', async () => {
    const { v } = await host(['/sitemap.xml'], {
      '/sitemap.xml': (res, o) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><head><title>Not found</title></head><body><a href="${o}/x">x</a>&nbsp;</body></html>`),
    });
    const { urls, reports } = await discover(v);
    expect(urls).toEqual([]);
    expect(reports[0]).toMatchObject({ outcome: 'read', format: 'html', urls: 0 });
    expect(reports[0]!.problems[0]).toMatch(/HTML/);
  });

  it('an index that lists itself, and two indexes that list each other: each read once, the loop counted', async () => {
    const { v, o } = await host(['/self.xml', '/a.xml'], {
      '/self.xml': (res, o) => xml(sitemapindex([`${o}/self.xml`, `${o}/leaf.xml`]))(res, o),
      '/a.xml': (res, o) => xml(sitemapindex([`${o}/b.xml`]))(res, o),
      '/b.xml': (res, o) => xml(sitemapindex([`${o}/a.xml`, `${o}/leaf.xml`]))(res, o),
      '/leaf.xml': (res, o) => xml(urlset([`${o}/page`]))(res, o),
    });
    const { urls, stats } = await discover(v);
    expect(urls.map((u) => u.url)).toEqual([`${o}/page`]);
    for (const p of ['/self.xml', '/a.xml', '/b.xml', '/leaf.xml']) expect(v.requests('a.test', p)).toHaveLength(1);
    expect(stats.dropped['sitemap-loop']).toBe(3);
  });

  it('children that redirect back to their index: the index is read once, each redirect not followed (sitemap-loop)', async () => {
    const kids = Array.from({ length: 10 }, (_, i) => `/c${i}.xml`);
    const routes: Record<string, Route> = {
      '/idx.xml': (res, o) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(sitemapindex(kids.map((k) => `${o}${k}`))),
      // Two children that redirect to one sitemap nobody lists: read once too.
      '/c8.xml': (res, o) => void res.writeHead(301, { location: `${o}/moved.xml` }).end(),
      '/c9.xml': (res, o) => void res.writeHead(301, { location: `${o}/moved.xml` }).end(),
      '/moved.xml': (res, o) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([`${o}/page`])),
    };
    for (const k of kids.slice(0, 8)) routes[k] = (res, o) => void res.writeHead(301, { location: `${o}/idx.xml` }).end();
    const { v, o } = await host(['/idx.xml'], routes);
    const { urls, stats, reports } = await discover(v);
    expect(urls.map((u) => u.url)).toEqual([`${o}/page`]);
    expect(v.requests('a.test', '/idx.xml')).toHaveLength(1);
    expect(v.requests('a.test', '/moved.xml')).toHaveLength(1);
    expect(stats.dropped['sitemap-loop']).toBe(9);
    const looped = reports.filter((r) => r.problems.some((p) => /reads once: not followed/.test(p)));
    expect(looped).toHaveLength(9);
    expect(looped.every((r) => r.outcome === 'read' && r.status === 301)).toBe(true);
  });

  it('a nesting bomb (1,000,000 nested tags, 9 KB gzipped) and an attribute flood: stopped at a shape no sitemap has, in bounded memory', async () => {
    const zlib = await import('node:zlib');
    const deep = zlib.gzipSync(`<urlset xmlns="${NS}"><url><loc>http://X/first</loc></url>` + '<a>'.repeat(1_000_000));
    const flood = `<urlset xmlns="${NS}"><url a0="1"` + Array.from({ length: 200_000 }, (_, i) => ` b${i}="x"`).join('') + '><loc>http://X/p</loc></url></urlset>';
    const { v, o } = await host(['/deep.xml', '/flood.xml'], {
      '/deep.xml': (res, origin) => void res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(zlib.gzipSync(zlib.gunzipSync(deep).toString().replace('http://X', origin))),
      '/flood.xml': (res, origin) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(flood.replace('http://X', origin)),
    });
    const before = process.memoryUsage().rss;
    const { urls, reports } = await discover(v);
    // What came before the nesting is kept; each is said to be cut, with what was wrong.
    expect(urls.map((u) => u.url)).toEqual([`${o}/first`]);
    const deepReport = reports.find((r) => r.url.endsWith('/deep.xml'))!;
    expect(deepReport).toMatchObject({ outcome: 'read', limit: 'max-depth' });
    expect(deepReport.problems.join('\n')).toMatch(/nested more than 64 deep/);
    const floodReport = reports.find((r) => r.url.endsWith('/flood.xml'))!;
    expect(floodReport).toMatchObject({ outcome: 'read', limit: 'max-depth' });
    expect(floodReport.problems.join('\n')).toMatch(/more than 256 attributes/);
    // Unbounded, the nesting alone held hundreds of MB (1.3 GB at 4,000,000 tags).
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
  });

  it('a 10 GB gzip bomb as .xml.gz: stopped by the ratio cap after a few MiB, the rest never sent', async () => {
    const sent: Sent = { bytes: 0, done: false };
    const { v } = await host(['/bomb.xml.gz'], {
      '/bomb.xml.gz': (res) => {
        res.writeHead(200, { 'content-type': 'application/gzip' });
        return stream(res, gzipMember(`<urlset xmlns="${NS}">`), () => MIB_OF_SPACES_GZ, 10 * 1024, gzipMember('</urlset>'), sent);
      },
    });
    const { reports } = await discover(v);
    expect(reports[0]).toMatchObject({ outcome: 'read', limit: 'max-ratio', gzip: true });
    expect(reports[0]!.bytes).toBeLessThan(64 * 1024 * 1024);
    expect(sent.done).toBe(false);
    // What left the server is what the socket buffers held when the reader stopped, not 10 MB.
    expect(sent.bytes).toBeLessThan(4 * 1024 * 1024);
  });

  it('a 10 GB gzip bomb behind Content-Encoding without a length: stopped at 50 MB uncompressed', async () => {
    const sent: Sent = { bytes: 0, done: false };
    const { v } = await host(['/bomb.xml'], {
      '/bomb.xml': (res) => {
        res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' });
        return stream(res, gzipMember(`<urlset xmlns="${NS}">`), () => MIB_OF_SPACES_GZ, 10 * 1024, gzipMember('</urlset>'), sent);
      },
    });
    const { reports } = await discover(v);
    expect(reports[0]).toMatchObject({ outcome: 'read', limit: 'max-bytes', bytes: 52_428_800 });
    expect(sent.done).toBe(false);
  });

  it('a million-URL listing: the first 50,000 kept, the read stopped there', async () => {
    const sent: Sent = { bytes: 0, done: false };
    const { v } = await host(['/huge.xml'], {
      '/huge.xml': (res, o) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        return stream(res, `<urlset xmlns="${NS}">\n`, (i) => `<url><loc>${o}/item/${i}</loc></url>\n`, 1_000_000, '</urlset>\n', sent);
      },
    });
    const { urls, reports } = await discover(v, { maxUrlsPerHost: 1_000_000 });
    expect(urls).toHaveLength(50_000);
    expect(urls[49_999]!.url).toMatch(/\/item\/49999$/);
    expect(reports[0]).toMatchObject({ limit: 'max-urls', urls: 50_000 });
    expect(sent.done).toBe(false);
  });

  it('the per-host total stops reading once reached, and drops the rest by reason', async () => {
    const { v } = await host(['/s1.xml', '/s2.xml'], {
      '/s1.xml': (res, o) => xml(urlset(Array.from({ length: 8 }, (_, i) => `${o}/a/${i}`)))(res, o),
      '/s2.xml': (res, o) => xml(urlset(Array.from({ length: 8 }, (_, i) => `${o}/b/${i}`)))(res, o),
    });
    const { urls, stats } = await discover(v, { maxUrlsPerHost: 5 });
    expect(urls).toHaveLength(5);
    expect(stats.dropped['max-urls-per-host']).toBeGreaterThanOrEqual(1);
  });

  it('404 and 5xx sitemaps are recorded once each, never retried, and the others still read', async () => {
    const { v, o } = await host(['/missing.xml', '/down.xml', '/idx.xml'], {
      '/down.xml': (res) => void res.writeHead(500).end('boom'),
      '/idx.xml': (res, o) => xml(sitemapindex([`${o}/missing.xml`, `${o}/down.xml`, `${o}/ok.xml`]))(res, o),
      '/ok.xml': (res, o) => xml(urlset([`${o}/fine`]))(res, o),
    });
    const { urls, reports, stats } = await discover(v);
    expect(urls.map((u) => u.url)).toEqual([`${o}/fine`]);
    expect(reports.find((r) => r.url.endsWith('/missing.xml'))).toMatchObject({ outcome: 'error', status: 404, error: 'http-404' });
    expect(reports.find((r) => r.url.endsWith('/down.xml'))).toMatchObject({ outcome: 'error', status: 500, error: 'http-500' });
    expect(v.requests('a.test', '/missing.xml')).toHaveLength(1);
    expect(v.requests('a.test', '/down.xml')).toHaveLength(1);
    expect(stats).toMatchObject({ sitemapsFailed: 2, sitemapsRead: 2 });
  });

  it('a sitemap that stalls mid-body: cut at the fetch time limit, what came before kept', async () => {
    const { v, o } = await host(['/slow.xml'], {
      '/slow.xml': (res, o) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.write(`<urlset xmlns="${NS}"><url><loc>${o}/early</loc></url>`);
        // ...and nothing more: the server holds the connection open.
      },
    });
    const { urls, reports } = await discover(v, { timeoutMs: 400 });
    expect(urls.map((u) => u.url)).toEqual([`${o}/early`]);
    expect(reports[0]).toMatchObject({ outcome: 'read', limit: 'timeout' });
  });
});
