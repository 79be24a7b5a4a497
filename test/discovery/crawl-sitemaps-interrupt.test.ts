// Ctrl-C while `crawl --sitemaps` is still reading sitemaps (a slow sitemap server, or hosts an
// earlier run left under a back-off, which the phase now waits out): the crawl stops as it does
// mid-crawl, with exit 130 and the run's end recorded, and --resume reads the unsettled sitemap.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import { urlset } from './sitemap-server.js';

const UA = 'MapBot/1.0 (+https://example.test/bot)';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-crawl-sitemaps-int-');

describe('robots-gate crawl --sitemaps, interrupted in the sitemap phase', () => {
  it('SIGINT while a sitemap is being read: exit 130, the run ended as interrupted, --resume reads it', async () => {
    let a = '';
    let hang = true;
    const v = await hosts({
      'a.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end(`User-agent: *\nSitemap: ${a}/s.xml\n`);
        if (req.url === '/s.xml') {
          // The first run's sitemap request never gets an answer.
          if (hang) return;
          return void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([`${a}/p/1`]));
        }
        res.end('page');
      },
    });
    a = v.origin('a.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n`);
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '50', '--timeout', '60000', ...resolveArgs(v)];
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
    hang = false;
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/did not end cleanly/);
    expect(v.requests('a.test', '/s.xml'), second.stderr).toHaveLength(2);
    expect(v.requests('a.test', '/p/1')).toHaveLength(1);
  });

  it('a sitemap answered 503 is not settled: --resume reads it again', async () => {
    let a = '';
    let busy = true;
    const v = await hosts({
      'a.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end(`User-agent: *\nSitemap: ${a}/s.xml\n`);
        if (req.url === '/s.xml') {
          if (busy) return void res.writeHead(503, { 'retry-after': '1' }).end('later');
          return void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([`${a}/p/1`]));
        }
        res.end('page');
      },
    });
    a = v.origin('a.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n`);
    const args = ['crawl', list, '--sitemaps', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '50', ...resolveArgs(v)];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(1);
    busy = false;
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/settled before/);
    expect(v.requests('a.test', '/s.xml')).toHaveLength(2);
    expect(v.requests('a.test', '/p/1')).toHaveLength(1);
  });
});
