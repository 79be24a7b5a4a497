// A sitemap URL that answers an HTML page (a CMS's home or 404 page with a 200), as a new user met
// it: both `robots-gate sitemaps` and `crawl --sitemaps` name the page on stderr, count it apart in
// their summary lines and exit 1, since it listed nothing; it was said only by `audit --sitemaps`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import { urlset } from './sitemap-server.js';

const UA = 'MapBot/1.0 (+https://example.test/bot)';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-sitemap-html-');

const HTML_PAGE = '<html><head><title>/sitemap.xml</title></head><body>page /sitemap.xml</body></html>';

/** a.test names two sitemaps: /sitemap.xml answers an HTML page, /s.xml a urlset of one URL. */
async function shop() {
  let a = '';
  const v = await hosts({
    'a.test': (req, res) => {
      const files: Record<string, [string, string]> = {
        '/robots.txt': ['text/plain', `User-agent: *\nSitemap: ${a}/sitemap.xml\nSitemap: ${a}/s.xml\n`],
        '/sitemap.xml': ['text/html', HTML_PAGE],
        '/s.xml': ['application/xml', urlset([`${a}/p/1`])],
        '/p/1': ['text/html', 'one'],
      };
      const f = files[req.url ?? '/'];
      if (f === undefined) return void res.writeHead(404).end('no');
      res.writeHead(200, { 'content-type': f[0] }).end(f[1]);
    },
  });
  a = v.origin('a.test');
  return { v, a };
}

describe('a sitemap URL that answers an HTML page', () => {
  it('crawl --sitemaps names it on stderr, counts it apart from the sitemaps read, and exits 1', async () => {
    const { v, a } = await shop();
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n`);
    const r = await runCli(['crawl', list, '--sitemaps', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '50', ...resolveArgs(v)]);
    expect(r.stderr).toContain(`robots-gate crawl: sitemap ${a}/sitemap.xml html: 0 URLs; an HTML page, not a sitemap`);
    // The sitemap that was one is not named: only the HTML page gets a line of its own.
    expect(r.stderr).not.toContain(`sitemap ${a}/s.xml`);
    expect(r.stderr).toContain(`${a}: 2 sitemaps read (1 an HTML page, not a sitemap), 0 failed, 0 blocked; 1 URL found`);
    expect(r.stderr).toMatch(/sitemaps: 2 sitemaps read \(1 an HTML page, not a sitemap\), 0 failed, 0 blocked; 1 URL found on 1 host/);
    // What the real sitemap listed is still crawled; the run completed with a problem.
    expect(v.requests('a.test', '/p/1')).toHaveLength(1);
    expect(r.code).toBe(1);
  });

  it('the sitemaps command counts it apart in its summary line and exits 1, as its --help says', async () => {
    const { v, a } = await shop();
    const r = await runCli(['sitemaps', a, '--user-agent', UA, '--min-interval', '0', ...resolveArgs(v)]);
    expect(r.stdout.trim().split('\n')).toEqual([`${a}/p/1`]);
    expect(r.stderr).toContain(`sitemap ${a}/sitemap.xml html: 0 URLs; an HTML page, not a sitemap`);
    expect(r.stderr).toContain(`${a}: 2 sitemaps read (1 an HTML page, not a sitemap), 0 failed, 0 blocked; 1 URL found (0 disallowed by robots.txt)`);
    expect(r.code).toBe(1);
    const help = await runCli(['sitemaps', '--help']);
    expect(help.stdout).toMatch(/1 {2}a sitemap was blocked by robots\.txt, failed \(4xx, 5xx, network\), was an HTML page/);
    const crawlHelp = await runCli(['crawl', '--help']);
    expect(crawlHelp.stdout).toMatch(/with --sitemaps, some sitemap failed, was blocked, was an HTML page/);
  });
});
