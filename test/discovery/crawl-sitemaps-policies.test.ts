// `crawl --sitemaps` keeps every robots.txt text that stamps a row: the ones fetched while the
// sitemaps were read (before the crawl proper) included, so `audit --verify` can re-check them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import { urlset } from './sitemap-server.js';

const UA = 'MapBot/1.0 (+https://example.test/bot)';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-crawl-sitemaps-policies-');

describe('robots-gate crawl --sitemaps: robots.txt texts', () => {
  it('stores the policy of every stamp, so audit --verify exits 0', async () => {
    let a = '';
    let b = '';
    const page = (files: () => Record<string, string>) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      const body = files()[req.url ?? '/'];
      if (body === undefined) return void res.writeHead(404).end('no');
      res.writeHead(200, { 'content-type': req.url?.endsWith('.xml') ? 'application/xml' : 'text/plain' }).end(body);
    };
    const v = await hosts({
      'a.test': page(() => ({
        '/robots.txt': `User-agent: *\nDisallow: /private/\nSitemap: ${a}/s.xml\n`,
        '/s.xml': urlset([`${a}/p/1`, `${a}/private/x`]),
        '/p/1': 'one',
      })),
      'b.test': page(() => ({
        '/robots.txt': `User-agent: *\nAllow: /\nSitemap: ${b}/s.xml\n`,
        '/s.xml': urlset([`${b}/q/1`]),
        '/q/1': 'q1',
      })),
    });
    a = v.origin('a.test');
    b = v.origin('b.test');
    const dir = tmp();
    const list = path.join(dir, 'origins.txt');
    fs.writeFileSync(list, `${a}\n${b}\n`);
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '50', ...resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);

    const audit = openAudit(out);
    const rows = audit.attempts();
    const policies = audit.policies();
    audit.close();
    const stamped = new Set(rows.map((x) => x.policySha256).filter((s): s is string => s !== null));
    expect(stamped.size).toBe(2);
    expect(new Set(policies.map((p) => p.sha256))).toEqual(stamped);
    expect(policies.find((p) => p.origin === a)?.body).toContain('Disallow: /private/');

    const verify = await runCli(['audit', out, '--verify']);
    expect(verify.stderr + verify.stdout).not.toMatch(/is not stored/);
    expect(verify.code).toBe(0);
  });
});
