// discoverSitemaps against real loopback servers: the formats, the scope rules, the gate on
// every sitemap request, and the audit row of kind `sitemap`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RobotsGate, SqliteAuditSink, openAudit, discoverSitemaps, type DiscoverOptions, type SitemapReport, type DiscoveredUrl } from '../../src/index.js';
import { startVirtualHosts, type HostHandler, type VirtualHosts } from '../helpers/hosts.js';
import { sitemapindex, urlset } from './sitemap-server.js';

const UA = 'SitemapBot/1.0 (+https://example.com/bot)';
let server: VirtualHosts | undefined;
let gate: RobotsGate | undefined;
let dir: string | undefined;
afterEach(async () => {
  await gate?.close();
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  gate = server = dir = undefined;
});

/** Serve `files` (path → body, or a handler) on each host; robots.txt among them. */
function files(map: Record<string, string | Buffer | ((res: import('node:http').ServerResponse) => void)>, type = 'application/xml'): HostHandler {
  return (req, res) => {
    const f = map[req.url ?? '/'];
    if (f === undefined) return void res.writeHead(404).end('not found');
    if (typeof f === 'function') return f(res);
    res.writeHead(200, { 'content-type': req.url === '/robots.txt' ? 'text/plain' : type }).end(f);
  };
}

async function discover(v: VirtualHosts, host: string, options: DiscoverOptions = {}) {
  gate = new RobotsGate({ userAgent: UA, resolve: v.resolve });
  const reports: SitemapReport[] = [];
  const d = discoverSitemaps(gate, v.origin(host), { minIntervalMs: 0, onSitemap: (r) => reports.push(r), ...options });
  const urls: DiscoveredUrl[] = [];
  for await (const u of d) urls.push(u);
  return { urls, reports, stats: d.stats, byUrl: (u: string) => reports.find((r) => r.url === u)! };
}

describe('discoverSitemaps: formats', () => {
  it('reads a nested index to depth 3, gzip by body and by Content-Encoding, text, RSS and Atom, keeping the claims', async () => {
    let o = '';
    server = await startVirtualHosts({
      'a.test': (req, res) =>
        files({
          '/robots.txt': `User-agent: *\nAllow: /\nSitemap: ${o}/index.xml\nSitemap: ${o}/feed.rss\nSitemap: ${o}/atom.xml\n`,
          '/index.xml': sitemapindex([`${o}/plain.xml`, `${o}/deep/index2.xml`]),
          '/plain.xml': urlset([{ loc: `${o}/p/1`, lastmod: '2024-05-01', changefreq: 'daily', priority: '0.8' }, `${o}/p/2`]),
          '/deep/index2.xml': sitemapindex([`${o}/deep/s.xml.gz`, `${o}/deep/index3.xml`]),
          '/deep/s.xml.gz': zlib.gzipSync(urlset([`${o}/deep/g1`, `${o}/deep/g2`])),
          '/deep/index3.xml': sitemapindex([`${o}/deep/enc.xml`, `${o}/deep/index4.xml`]),
          '/deep/enc.xml': (r) => r.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(zlib.gzipSync(urlset([`${o}/deep/e1`]))),
          '/deep/index4.xml': sitemapindex([`${o}/deep/never.xml`]),
          '/feed.rss': `<?xml version="1.0"?><rss version="2.0"><channel><link>${o}/</link><item><link>${o}/news/1</link><pubDate>Mon, 06 May 2024 10:00:00 GMT</pubDate></item></channel></rss>`,
          '/atom.xml': `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="${o}/blog/1"/><updated>2024-05-02T00:00:00Z</updated></entry></feed>`,
          '/list.txt': `${o}/t/1\n\n${o}/t/2\r\n`,
        })(req, res),
    });
    o = server.origin('a.test');
    const { urls, byUrl, stats } = await discover(server, 'a.test');
    const got = new Map(urls.map((u) => [u.url.slice(o.length), u]));
    expect([...got.keys()].sort()).toEqual(['/blog/1', '/deep/e1', '/deep/g1', '/deep/g2', '/news/1', '/p/1', '/p/2']);
    expect(got.get('/p/1')).toMatchObject({ lastmod: '2024-05-01', changefreq: 'daily', priority: '0.8', sitemap: `${o}/plain.xml`, robotsUrl: `${o}/robots.txt` });
    expect(got.get('/news/1')!.lastmod).toBe('Mon, 06 May 2024 10:00:00 GMT');
    expect(got.get('/blog/1')!.lastmod).toBe('2024-05-02T00:00:00Z');
    expect(byUrl(`${o}/deep/s.xml.gz`)).toMatchObject({ format: 'urlset', gzip: true, depth: 3 });
    expect(byUrl(`${o}/deep/enc.xml`)).toMatchObject({ format: 'urlset', gzip: true, depth: 4 });
    // Three levels of indexes are followed; what a fourth lists is dropped, never requested.
    expect(byUrl(`${o}/deep/index4.xml`).dropped).toEqual({ 'too-deep': 1 });
    expect(server.requests('a.test', '/deep/never.xml')).toHaveLength(0);
    expect(stats).toMatchObject({ sitemapsRead: 9, sitemapsFailed: 0, urlsFound: 7 });
  });

  it('reads a plain text list, one URL a line', async () => {
    let o = '';
    server = await startVirtualHosts({
      'a.test': (req, res) => files({ '/robots.txt': `Sitemap: ${o}/list.txt\n`, '/list.txt': `${o}/t/1\n\n${o}/t/2\r\n# not a URL\nnot a url at all\n` }, 'text/plain')(req, res),
    });
    o = server.origin('a.test');
    const { urls, reports } = await discover(server, 'a.test');
    expect(urls.map((u) => u.url)).toEqual([`${o}/t/1`, `${o}/t/2`]);
    expect(reports[0]).toMatchObject({ format: 'text', dropped: { 'invalid-url': 1 } });
  });
});

describe('discoverSitemaps: scope and bad URLs', () => {
  it('drops and counts credentials, other schemes, relative URLs, other hosts, paths above the sitemap, duplicates', async () => {
    let o = '';
    server = await startVirtualHosts({
      'a.test': (req, res) =>
        files({
          '/robots.txt': `Sitemap: ${o}/shop/sitemap.xml\n`,
          '/shop/sitemap.xml': urlset([
            `${o}/shop/1`,
            `${o}/shop/1#frag`,
            `${o.replace('http://', 'http://user:secret@')}/shop/2`,
            'javascript:alert(1)',
            'mailto:x@a.test',
            'ftp://a.test/shop/3',
            '/shop/relative',
            'shop/relative2',
            'http://b.test/shop/4',
            `${o}/elsewhere/5`,
            `${o}/${'x'.repeat(2100)}`,
            '',
          ]),
        })(req, res),
    });
    o = server.origin('a.test');
    const { urls, reports } = await discover(server, 'a.test');
    // The robots.txt's own origin vouches for the sitemap it names: the whole origin is in scope.
    expect(urls.map((u) => u.url)).toEqual([`${o}/shop/1`, `${o}/elsewhere/5`]);
    expect(reports[0]!.dropped).toEqual({
      duplicate: 1,
      credentials: 1,
      'unsupported-scheme': 3,
      'relative-url': 2,
      'other-host': 1,
      'too-long': 1,
    });
    expect(JSON.stringify(reports)).not.toContain('secret');
  });

  it('a sitemap index keeps its children to its directory; cross-submission counts only for the host whose robots.txt names it', async () => {
    let a = '';
    let b = '';
    server = await startVirtualHosts({
      'a.test': (req, res) => files({ '/robots.txt': `Sitemap: ${b}/maps/for-a.xml\n` })(req, res),
      'b.test': (req, res) =>
        files({
          '/robots.txt': 'User-agent: *\nAllow: /\n',
          '/maps/for-a.xml': urlset([`${a}/1`, `${b}/maps/own`, `${b}/other/above`, 'http://c.test/x']),
        })(req, res),
    });
    a = server.origin('a.test');
    b = server.origin('b.test');
    const { urls, reports } = await discover(server, 'a.test');
    expect(urls.map((u) => u.url)).toEqual([`${a}/1`, `${b}/maps/own`]);
    expect(reports[0]!.dropped).toEqual({ 'outside-path': 1, 'other-host': 1 });
    // The sitemap on b.test was decided by b.test's own robots.txt, and says who advertised it.
    expect(server.requests('b.test', '/robots.txt')).toHaveLength(1);
    expect(reports[0]!.decision!.policy.robotsUrl).toBe(`${b}/robots.txt`);
    expect(reports[0]!.advertisedBy).toBe(`${a}/robots.txt`);
  });
});

describe('discoverSitemaps: the gate on every sitemap request', () => {
  it('never requests a sitemap robots.txt disallows, and spaces each request by the host interval after the robots.txt one', async () => {
    let o = '';
    server = await startVirtualHosts({
      'a.test': (req, res) =>
        files({
          '/robots.txt': `User-agent: *\nDisallow: /private/\nSitemap: ${o}/private/s.xml\nSitemap: ${o}/s1.xml\nSitemap: ${o}/s2.xml\n`,
          '/private/s.xml': urlset([`${o}/secret`]),
          '/s1.xml': urlset([`${o}/1`]),
          '/s2.xml': urlset([`${o}/2`]),
        })(req, res),
    });
    o = server.origin('a.test');
    const { urls, byUrl, stats } = await discover(server, 'a.test', { minIntervalMs: 250 });
    expect(urls.map((u) => u.url)).toEqual([`${o}/1`, `${o}/2`]);
    expect(server.requests('a.test', '/private/s.xml')).toHaveLength(0);
    expect(byUrl(`${o}/private/s.xml`)).toMatchObject({ outcome: 'blocked' });
    expect(byUrl(`${o}/private/s.xml`).decision!.rule).toMatchObject({ type: 'disallow', line: 2 });
    expect(stats.sitemapsBlocked).toBe(1);
    const log = server.requests('a.test');
    expect(log.map((r) => r.path)).toEqual(['/robots.txt', '/s1.xml', '/s2.xml']);
    for (let i = 1; i < log.length; i++) expect(log[i]!.startedAt - log[i - 1]!.endedAt!).toBeGreaterThanOrEqual(245);
    expect(log.every((r) => r.userAgent === UA)).toBe(true);
  });

  it('writes one audit row of kind sitemap per sitemap, stamped with the deciding policy, final, with what it found', async () => {
    let o = '';
    server = await startVirtualHosts({
      'a.test': (req, res) =>
        files({
          '/robots.txt': `User-agent: *\nDisallow: /no\nSitemap: ${o}/s.xml\nSitemap: ${o}/no.xml\nSitemap: ${o}/gone.xml\n`,
          '/s.xml': urlset([`${o}/1`, 'javascript:void(0)']),
          '/gone.xml': (r) => r.writeHead(503, { 'retry-after': '1' }).end('down'),
        })(req, res),
    });
    o = server.origin('a.test');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-sitemap-'));
    const audit = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    await discover(server, 'a.test', { audit, runId: 'run-s' });
    audit.close();
    const reader = openAudit(dir);
    const rows = reader.attempts({ kind: 'sitemap' });
    reader.close();
    expect(rows.map((r) => [r.url.slice(o.length), r.outcome, r.status, r.reason])).toEqual([
      ['/s.xml', 'fetched', 200, 'no-matching-rule'],
      ['/no.xml', 'blocked', null, 'disallowed-by-rule'],
      ['/gone.xml', 'error', 503, 'http-503'],
    ]);
    for (const r of rows) {
      // Final, but for the one answered 503: the server said later, so a --resume reads it again.
      expect(r).toMatchObject({ runId: 'run-s', kind: 'sitemap', final: r.status !== 503, robotsUrl: `${o}/robots.txt`, parentUrl: `${o}/robots.txt` });
      expect(r.policySha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(rows[0]!.sitemap).toMatchObject({ format: 'urlset', urls: 1, dropped: { 'unsupported-scheme': 1 }, advertisedBy: `${o}/robots.txt`, depth: 1 });
    expect(rows[0]!.contentSha256).toMatch(/^[0-9a-f]{64}$/);
    // A 5xx sitemap is recorded and left: one request, no retry.
    expect(server.requests('a.test', '/gone.xml')).toHaveLength(1);
  });

  it('follows a sitemap redirect hop by hop, each hop decided by its own origin: a disallowed target is never requested', async () => {
    let a = '';
    let b = '';
    server = await startVirtualHosts({
      'a.test': (req, res) =>
        files({
          '/robots.txt': `Sitemap: ${a}/moved.xml\nSitemap: ${a}/to-private.xml\n`,
          '/moved.xml': (r) => r.writeHead(301, { location: `${b}/maps/s.xml` }).end(),
          '/to-private.xml': (r) => r.writeHead(302, { location: `${b}/private/s.xml` }).end(),
        })(req, res),
      'b.test': (req, res) =>
        files({
          '/robots.txt': 'User-agent: *\nDisallow: /private/\n',
          '/maps/s.xml': urlset([`${a}/from-b`]),
          '/private/s.xml': urlset([`${a}/never`]),
        })(req, res),
    });
    a = server.origin('a.test');
    b = server.origin('b.test');
    const { urls, byUrl } = await discover(server, 'a.test');
    // The URLs a redirected sitemap lists are scoped by the sitemap as advertised (a.test vouches).
    expect(urls.map((u) => u.url)).toEqual([`${a}/from-b`]);
    expect(byUrl(`${a}/to-private.xml`)).toMatchObject({ outcome: 'blocked' });
    expect(byUrl(`${a}/to-private.xml`).decision!.policy.robotsUrl).toBe(`${b}/robots.txt`);
    expect(server.requests('b.test', '/private/s.xml')).toHaveLength(0);
  });
});
