// The robots.txt request counts too, wherever it comes from: a crawl's refetch (--recheck-after),
// a robots.txt redirected into another host, and the first request of a run into an --out an
// earlier run wrote (its last response is the host's last). Gaps measured at the server.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';
import { openAudit } from '../../src/audit/reader.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-robots-gap-');
const UA = 'GapBot/1.0';

function gapsOf(v: VirtualHosts, host: string): { path: string; gap: number }[] {
  const log = v.requests(host).slice().sort((a, b) => a.startedAt - b.startedAt);
  return log.slice(1).map((r, i) => ({ path: r.path, gap: r.startedAt - log[i]!.endedAt! }));
}

function list(dir: string, name: string, urls: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, urls.join('\n') + '\n');
  return file;
}

describe('robots.txt requests in a crawl keep the host interval', () => {
  it('--recheck-after: each refetch of robots.txt, even one answered 503, is spaced from the pages around it', async () => {
    let robotsServed = 0;
    const v = await hosts({
      're.test': (req, res) => {
        if (req.url === '/robots.txt') {
          robotsServed++;
          // A 503 backs the host off too (Retry-After: 1 s), robots.txt or not.
          if (robotsServed === 2) return void res.writeHead(503, { 'retry-after': '1' }).end('busy');
          return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        }
        res.writeHead(200, { 'content-type': 'text/html' }).end(`page ${req.url}`);
      },
    });
    const dir = tmp();
    const urls = ['/a', '/b', '/c', '/d'].map((p) => v.origin('re.test') + p);
    const r = await runCli(['crawl', list(dir, 'urls.txt', urls), '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '300', '--recheck-after', '50', ...resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);
    const seen = gapsOf(v, 're.test');
    expect(seen.filter((s) => s.path === '/robots.txt').length).toBeGreaterThanOrEqual(2);
    for (const s of seen) expect([s.path, s.gap >= 300]).toEqual([s.path, true]);
    // The request after the 503 waited out its Retry-After.
    const log = v.requests('re.test').slice().sort((a, b) => a.startedAt - b.startedAt);
    const i = log.findIndex((q, n) => q.path === '/robots.txt' && n > 0);
    expect(log[i + 1]!.startedAt - log[i]!.endedAt!).toBeGreaterThanOrEqual(1000);
  });

  it('--recheck-after shorter than the Crawl-delay: one robots.txt request a page, each page sent on the copy fetched for it', async () => {
    const v = await hosts({ 'short.test': site('User-agent: *\nCrawl-delay: 1\nAllow: /\n') });
    const dir = tmp();
    const urls = ['/a', '/b', '/c'].map((p) => v.origin('short.test') + p);
    const r = await runCli(['crawl', list(dir, 'urls.txt', urls), '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '100', '--recheck-after', '500', ...resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);
    const seen = v.requests('short.test').slice().sort((a, b) => a.startedAt - b.startedAt).map((q) => q.path);
    expect(seen).toEqual(['/robots.txt', '/a', '/robots.txt', '/b', '/robots.txt', '/c']);
    for (const s of gapsOf(v, 'short.test')) expect([s.path, s.gap >= 1000]).toEqual([s.path, true]);
  });

  it('a Crawl-delay raised at a --recheck-after refetch: the next page waits it, and its row says so beside the new policy', async () => {
    let robotsServed = 0;
    const v = await hosts({
      'rise.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nCrawl-delay: ${++robotsServed === 1 ? 1 : 2}\n`);
        res.writeHead(200, { 'content-type': 'text/html' }).end(`page ${req.url}`);
      },
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const urls = ['/p1', '/p2'].map((p) => v.origin('rise.test') + p);
    const r = await runCli(['crawl', list(dir, 'urls.txt', urls), '--user-agent', UA, '--out', out, '--min-interval', '100', '--recheck-after', '500', ...resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);
    const seen = gapsOf(v, 'rise.test');
    expect(seen.map((s) => s.path)).toEqual(['/p1', '/robots.txt', '/p2']);
    expect(seen[2]!.gap).toBeGreaterThanOrEqual(2_000);
    const audit = openAudit(out);
    try {
      const rows = audit.attempts().filter((a) => a.kind === 'page');
      const bodies = new Map(audit.policies().map((p) => [p.sha256, p.body]));
      // Each row's interval is the one its own stamped policy asks for.
      expect(rows.map((a) => [new URL(a.url).pathname, a.intervalMs, a.waitReason, bodies.get(a.policySha256!)?.match(/Crawl-delay: \d/)?.[0]])).toEqual([
        ['/p1', 1_000, 'crawl-delay', 'Crawl-delay: 1'],
        ['/p2', 2_000, 'crawl-delay', 'Crawl-delay: 2'],
      ]);
    } finally {
      audit.close();
    }
  });

  for (const order of ['from first', 'to first']) {
    it(`a robots.txt that redirects into another host (${order} in the list): that host's file is asked for once, its pages wait its Crawl-delay after it`, async () => {
      const v = await hosts({
        'from.test': (req, res) => {
          if (req.url === '/robots.txt') return void res.writeHead(301, { location: `${v.origin('to.test')}/robots.txt` }).end();
          res.writeHead(200, { 'content-type': 'text/html' }).end('from');
        },
        'to.test': site('User-agent: *\nCrawl-delay: 1\nAllow: /\n'),
      });
      const dir = tmp();
      const urls = [`${v.origin('from.test')}/p`, `${v.origin('to.test')}/q`, `${v.origin('from.test')}/p2`, `${v.origin('to.test')}/q2`];
      if (order === 'to first') urls.reverse();
      const r = await runCli(['crawl', list(dir, 'urls.txt', urls), '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '300', ...resolveArgs(v)]);
      expect(r.code, r.stderr).toBe(0);
      expect(v.requests('to.test').map((q) => q.path).sort()).toEqual(['/q', '/q2', '/robots.txt']);
      for (const s of gapsOf(v, 'to.test')) expect([s.path, s.gap >= 1000]).toEqual([s.path, true]);
    });
  }

  it('a second run into the same --out: its robots.txt waits after the first run last response, its first page after that robots.txt', async () => {
    const v = await hosts({ 'again.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const o = v.origin('again.test');
    const r1 = await runCli(['crawl', list(dir, 'one.txt', [`${o}/one`]), '--user-agent', UA, '--out', out, '--min-interval', '700', ...resolveArgs(v)]);
    expect(r1.code, r1.stderr).toBe(0);
    const r2 = await runCli(['crawl', list(dir, 'two.txt', [`${o}/two`]), '--user-agent', UA, '--out', out, '--min-interval', '700', ...resolveArgs(v)]);
    expect(r2.code, r2.stderr).toBe(0);
    const seen = gapsOf(v, 'again.test');
    expect(seen.map((s) => s.path)).toEqual(['/one', '/robots.txt', '/two']);
    for (const s of seen) expect([s.path, s.gap >= 700]).toEqual([s.path, true]);
  });
});
