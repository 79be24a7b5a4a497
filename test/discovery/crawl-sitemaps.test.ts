// `robots-gate crawl --sitemaps` as a subprocess against loopback origins: the sitemaps' URLs are
// crawled as robots.txt allows, at each host's pace (sitemap requests included), with a row per
// sitemap and per URL, claims on the rows; --resume does not fetch a settled sitemap again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import type { LoggedRequest } from '../helpers/hosts.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import { sampleDraw } from '../../src/discovery/index.js';
import { sitemapindex, urlset } from './sitemap-server.js';

const UA = 'MapBot/1.0 (+https://example.test/bot)';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-crawl-sitemaps-');

type Files = Record<string, string | (() => string)>;
const serve = (files: () => Files) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
  const f = files()[req.url ?? '/'];
  if (f === undefined) return void res.writeHead(404).end('no');
  const body = typeof f === 'function' ? f() : f;
  res.writeHead(200, { 'content-type': req.url?.endsWith('.txt') ? 'text/plain' : req.url?.endsWith('.xml') ? 'application/xml' : 'text/html' }).end(body);
};

function minGap(reqs: LoggedRequest[]): number {
  let min = Infinity;
  for (let i = 1; i < reqs.length; i++) min = Math.min(min, reqs[i]!.startedAt - reqs[i - 1]!.endedAt!);
  return min;
}

describe('robots-gate crawl --sitemaps', () => {
  it('crawls what the sitemaps list and robots.txt allows, at each host pace, a row per sitemap and per URL, claims recorded', async () => {
    let a = '';
    let b = '';
    const v = await hosts({
      'a.test': serve(() => ({
        '/robots.txt': `User-agent: *\nDisallow: /private/\nSitemap: ${a}/index.xml\n`,
        '/index.xml': sitemapindex([`${a}/s1.xml`, `${a}/s2.xml`]),
        '/s1.xml': urlset([{ loc: `${a}/p/1`, lastmod: '2024-03-01', changefreq: 'never', priority: '0.1' }, `${a}/p/2`, `${a}/private/x`]),
        '/s2.xml': urlset([`${a}/p/3`, `${a}/p/1`]),
        '/p/1': 'one',
        '/p/2': 'two',
        '/p/3': 'three',
      })),
      'b.test': serve(() => ({
        '/robots.txt': `User-agent: *\nCrawl-delay: 0.3\nSitemap: ${b}/list.txt\n`,
        '/list.txt': `${b}/q/1\n${b}/q/2\n`,
        '/q/1': 'q1',
        '/q/2': 'q2',
      })),
    });
    a = v.origin('a.test');
    b = v.origin('b.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n${b}/any/page\n`);
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '120', ...resolveArgs(v)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fetched\s+5/);
    expect(r.stdout).toMatch(/blocked\s+1/);
    expect(r.stderr).toMatch(/sitemaps: 4 sitemaps read, 0 failed, 0 blocked; 6 URLs found on 2 hosts/);
    // The list's page is not crawled (no sitemap lists it), and the run says so once.
    expect(v.requests('b.test', '/any/page')).toHaveLength(0);
    const notes = r.stderr.split('\n').filter((l) => l.includes('the paths in it are not crawled'));
    expect(notes).toEqual([
      `robots-gate crawl: with --sitemaps the list is read as origins: the paths in it are not crawled, only the URLs their origins' sitemaps list (1 line has a path, such as ${b}/any/page; without --sitemaps the list's own URLs are crawled)`,
    ]);

    // Never sent: the disallowed URL a sitemap listed. Every request to a host, robots.txt and
    // sitemaps included, keeps the host's interval at the server.
    expect(v.requests('a.test', '/private/x')).toHaveLength(0);
    expect(minGap(v.requests('a.test'))).toBeGreaterThanOrEqual(115);
    expect(minGap(v.requests('b.test'))).toBeGreaterThanOrEqual(295);
    for (const p of ['/index.xml', '/s1.xml', '/s2.xml']) expect(v.requests('a.test', p)).toHaveLength(1);

    const audit = openAudit(out);
    const rows = audit.attempts();
    audit.close();
    const sitemapRows = rows.filter((x) => x.kind === 'sitemap');
    expect(sitemapRows.map((x) => x.url).sort()).toEqual([`${a}/index.xml`, `${a}/s1.xml`, `${a}/s2.xml`, `${b}/list.txt`].sort());
    // The summary counts every row the audit holds, the sitemaps' included.
    expect(r.stdout).toContain(`${rows.length} audit rows`);
    for (const s of sitemapRows) expect(s).toMatchObject({ outcome: 'fetched', final: true, robotsUrl: expect.stringMatching(/\/robots\.txt$/) });
    const p1 = rows.find((x) => x.url === `${a}/p/1`)!;
    expect(p1).toMatchObject({ kind: 'page', outcome: 'fetched', status: 200 });
    expect(p1.sitemap).toMatchObject({ source: `${a}/s1.xml`, advertisedBy: `${a}/robots.txt`, lastmod: '2024-03-01', changefreq: 'never', priority: '0.1' });
    expect(rows.find((x) => x.url === `${a}/private/x`)).toMatchObject({ outcome: 'blocked', sitemap: { source: `${a}/s1.xml` } });
    expect(rows.find((x) => x.url === `${b}/q/2`)!.sitemap).toMatchObject({ source: `${b}/list.txt` });
  });

  it('the closing sitemaps line counts as the per-origin lines do: a blocked sitemap is not counted read', async () => {
    let a = '';
    const v = await hosts({
      'a.test': serve(() => ({
        '/robots.txt': `User-agent: *\nDisallow: /private/\nSitemap: ${a}/s.xml\nSitemap: ${a}/private/s.xml\n`,
        '/s.xml': urlset([`${a}/p/1`]),
        '/p/1': 'one',
      })),
    });
    a = v.origin('a.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n`);
    const r = await runCli(['crawl', list, '--sitemaps', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '50', ...resolveArgs(v)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${a}: 1 sitemap read, 0 failed, 1 blocked; 1 URL found`);
    expect(r.stderr).toMatch(/sitemaps: 1 sitemap read, 0 failed, 1 blocked; 1 URL found on 1 host/);
    expect(v.requests('a.test', '/private/s.xml')).toHaveLength(0);
    // A list of origins only: nothing to warn about.
    expect(r.stderr).not.toMatch(/not crawled/);
  });

  it('--resume after an interrupt fetches no settled sitemap again and crawls the URLs left', async () => {
    let a = '';
    const v = await hosts({
      'a.test': serve(() => ({
        '/robots.txt': `User-agent: *\nSitemap: ${a}/index.xml\n`,
        '/index.xml': sitemapindex([`${a}/s.xml`]),
        '/s.xml': urlset(Array.from({ length: 8 }, (_, i) => `${a}/p/${i}`)),
        ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/p/${i}`, `page ${i}`])),
      })),
    });
    a = v.origin('a.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n`);
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '300', ...resolveArgs(v)];
    const first = await runCli(args, {
      onStart: (child) => {
        // Interrupt once a page or two are in: the sitemaps are settled by then.
        const t = setInterval(() => {
          if (v.requests('a.test').filter((x) => x.path.startsWith('/p/')).length >= 2) {
            clearInterval(t);
            child.kill('SIGINT');
          }
        }, 20);
      },
    });
    expect(first.code).toBe(130);
    const pagesBefore = v.requests('a.test').filter((x) => x.path.startsWith('/p/')).length;
    expect(pagesBefore).toBeLessThan(8);
    const second = await runCli([...args, '--resume']);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/2 sitemaps settled before, not fetched again/);
    // Counted over the URLs the sitemaps gave, as the progress lines count them (it said -5
    // against the list file's one origin line).
    const [, settled, left] = /resuming: (\d+) URLs? already settled, (\d+) to go/.exec(second.stderr) ?? [];
    expect(Number(settled) + Number(left), second.stderr).toBe(8);
    expect(v.requests('a.test', '/index.xml')).toHaveLength(1);
    expect(v.requests('a.test', '/s.xml')).toHaveLength(1);
    // Every page fetched once over the two runs (one in flight at the interrupt may go twice).
    for (let i = 0; i < 8; i++) expect(v.requests('a.test', `/p/${i}`).length).toBeGreaterThanOrEqual(1);
    expect(v.requests('a.test').filter((x) => x.path.startsWith('/p/')).length).toBeLessThanOrEqual(9);
  });

  it('puts the sampled lastmod claims to Last-Modified, then to an earlier run: a reliability per host in the summary and in audit --sitemaps', async () => {
    let a = '';
    const changed = new Set<number>();
    const lastmod = '2024-02-01';
    const v = await hosts({
      'a.test': (req, res) => {
        const p = req.url ?? '/';
        if (p === '/robots.txt') return void res.writeHead(200).end(`User-agent: *\nSitemap: ${a}/s.xml\n`);
        if (p === '/s.xml') return void res.writeHead(200).end(urlset(Array.from({ length: 10 }, (_, i) => ({ loc: `${a}/p/${i}`, lastmod }))));
        const i = Number(p.slice(3));
        // p/0 and p/1 say they changed long after their claim; the rest agree with it.
        const modified = i < 2 ? 'Wed, 01 Jan 2025 00:00:00 GMT' : 'Thu, 01 Feb 2024 08:00:00 GMT';
        res.writeHead(200, { 'content-type': 'text/html', 'last-modified': modified }).end(`page ${i}${changed.has(i) ? ' v2' : ''}`);
      },
    });
    a = v.origin('a.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n`);
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '0', ...resolveArgs(v)];
    // The sample: a host's first 5 URLs, and those the seeded draw picks (5 %).
    const sampled = Array.from({ length: 10 }, (_, i) => i).filter((i) => i < 5 || sampleDraw('robots-gate', `${a}/p/${i}`) < 0.05).length;

    const first = await runCli(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/lastmod reliability/);
    expect(first.stdout).toContain(`last-modified ${sampled - 2}/${sampled}`);

    // The second run: p/2 changed although its lastmod still says February; p/0 and p/1 did not.
    changed.add(2);
    const second = await runCli([...args, '--json']);
    expect(second.code).toBe(0);
    const lines = second.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const fresh = lines.find((l) => l.type === 'lastmod-reliability');
    expect(fresh.hosts).toEqual([
      expect.objectContaining({ host: new URL(a).host, sampled, checked: sampled, agree: sampled - 1, byEvidence: { 'content-hash': { checked: sampled, agree: sampled - 1 } } }),
    ]);
    expect(fresh.hosts[0].disagreements).toEqual([expect.objectContaining({ url: `${a}/p/2`, evidence: 'content-hash' })]);

    const audit = await runCli(['audit', out, '--sitemaps', '--json']);
    expect(audit.code).toBe(0);
    const rows = audit.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.type === 'sitemap')).toHaveLength(2);
    expect(rows.find((r) => r.type === 'lastmod-reliability')).toMatchObject({ runId: fresh.runId, agree: sampled - 1, checked: sampled });
    const text = await runCli(['audit', out, '--sitemaps']);
    const report = await runCli(['report', out]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('<table id="lastmod-reliability">');
    expect(report.stdout).toContain(`${a}/s.xml`);
    expect(text.stdout).toMatch(new RegExp(`${new URL(a).host}\\s+${sampled}\\s+${sampled}\\s+${sampled - 1}`));
  });
});

describe('robots-gate crawl --sitemaps --redis', () => {
  it('two workers of one run read each sitemap once between them, and crawl what they list', async () => {
    const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const tag = `sm${Date.now().toString(36)}`;
    const names = [`a.${tag}.test`, `b.${tag}.test`];
    let origins: string[] = [];
    const handler = (i: number) =>
      serve(() => {
        const o = origins[i]!;
        return {
          '/robots.txt': `User-agent: *\nSitemap: ${o}/index.xml\n`,
          '/index.xml': sitemapindex([`${o}/s1.xml`, `${o}/s2.xml`]),
          '/s1.xml': urlset(Array.from({ length: 4 }, (_, k) => `${o}/one/${k}`)),
          '/s2.xml': urlset(Array.from({ length: 4 }, (_, k) => `${o}/two/${k}`)),
          ...Object.fromEntries(['one', 'two'].flatMap((d) => Array.from({ length: 4 }, (_, k) => [`/${d}/${k}`, `${d} ${k}`]))),
        };
      });
    const v = await hosts({ [names[0]!]: handler(0), [names[1]!]: handler(1) });
    origins = names.map((n) => v.origin(n));
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, origins.join('\n') + '\n');
    const out = path.join(dir, 'out');
    const worker = (name: string) =>
      runCli(['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '100', '--redis', redis, '--run', tag, '--worker', name, ...resolveArgs(v)], { timeoutMs: 60_000 });
    const [w1, w2] = await Promise.all([worker('w1'), worker('w2')]);
    expect([w1.code, w2.code]).toEqual([0, 0]);
    for (const n of names) {
      for (const p of ['/index.xml', '/s1.xml', '/s2.xml']) expect([n, p, v.requests(n, p).length]).toEqual([n, p, 1]);
      for (const d of ['one', 'two']) for (let k = 0; k < 4; k++) expect(v.requests(n, `/${d}/${k}`).length).toBeGreaterThanOrEqual(1);
      expect(minGap(v.requests(n))).toBeGreaterThanOrEqual(95);
    }
    const audit = openAudit(out);
    const sitemapRows = audit.attempts({ kind: 'sitemap' });
    audit.close();
    expect(sitemapRows).toHaveLength(6);
    expect(new Set(sitemapRows.map((r) => r.url)).size).toBe(6);
  });
});
