// Ctrl-C while `crawl --sitemaps` is still reading sitemaps (a slow sitemap server, or hosts an
// earlier run left under a back-off, which the phase now waits out): the crawl stops as it does
// mid-crawl, with exit 130 and the run's end recorded, and --resume reads the unsettled sitemap.
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { crawlFixture, writeList } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import { urlset } from './sitemap-server.js';

const UA = 'MapBot/1.0 (+https://example.test/bot)';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-crawl-sitemaps-int-');

/** One origin whose /s.xml answers `firstRun` until `healthy()` is called, then a urlset of /p/1;
 *  with the list file and the crawl's arguments. */
async function sitemapSite(firstRun: (res: ServerResponse) => void, extra: string[] = []) {
  let a = '';
  let ok = false;
  const v = await hosts({
    'a.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.end(`User-agent: *\nSitemap: ${a}/s.xml\n`);
      if (req.url === '/s.xml') {
        if (!ok) return firstRun(res);
        return void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([`${a}/p/1`]));
      }
      res.end('page');
    },
  });
  a = v.origin('a.test');
  const dir = tmp();
  const list = writeList(dir, 'origins.txt', [a]);
  const out = path.join(dir, 'out');
  const args = ['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '50', ...extra, ...resolveArgs(v)];
  return { v, out, args, healthy: () => (ok = true) };
}

describe('robots-gate crawl --sitemaps, interrupted in the sitemap phase', () => {
  it('SIGINT while a sitemap is being read: exit 130, the run ended as interrupted, --resume reads it', async () => {
    // The first run's sitemap request never gets an answer.
    const { v, out, args, healthy } = await sitemapSite(() => {}, ['--timeout', '60000']);
    const first = await runCli(args, {
      onStart: (child) => {
        const t = setInterval(() => {
          if (v.requests('a.test', '/s.xml').length > 0) {
            clearInterval(t);
            child.kill('SIGINT');
          }
        }, 20);
      },
    });
    expect(first.code, first.stderr).toBe(130);
    expect(first.stderr).toMatch(/stopping/);
    const reader = openAudit(out);
    try {
      expect(reader.runs().map((r) => r.status)).toEqual(['interrupted']);
    } finally {
      reader.close();
    }
    healthy();
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/did not end cleanly/);
    expect(v.requests('a.test', '/s.xml'), second.stderr).toHaveLength(2);
    expect(v.requests('a.test', '/p/1')).toHaveLength(1);
  });

  it('a sitemap answered 503 is not settled: --resume reads it again', async () => {
    const { v, args, healthy } = await sitemapSite((res) => void res.writeHead(503, { 'retry-after': '1' }).end('later'));
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(1);
    healthy();
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/settled before/);
    expect(v.requests('a.test', '/s.xml')).toHaveLength(2);
    expect(v.requests('a.test', '/p/1')).toHaveLength(1);
  });
});
