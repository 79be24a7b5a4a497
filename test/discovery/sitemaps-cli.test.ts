// `robots-gate sitemaps` as a user runs it: the built CLI as a subprocess against loopback hosts.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { sitemapindex, urlset } from './sitemap-server.js';

let server: VirtualHosts | undefined;
beforeAll(() => assertBuilt());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('robots-gate sitemaps', () => {
  it('lists each discovered URL with its claim, source sitemap and advertising robots.txt; stderr says what each sitemap gave', async () => {
    let a = '';
    server = await startVirtualHosts({
      'a.test': (req, res) => {
        const body: Record<string, string> = {
          '/robots.txt': `User-agent: *\nDisallow: /private/\nSitemap: ${a}/index.xml\nSitemap: ${a}/private/hidden.xml\n`,
          '/index.xml': sitemapindex([`${a}/s.xml`]),
          '/s.xml': urlset([{ loc: `${a}/x`, lastmod: '2024-01-02' }, `${a}/y`, 'javascript:alert(1)']),
        };
        const b = body[req.url ?? ''];
        if (b === undefined) return void res.writeHead(404).end();
        res.writeHead(200).end(b);
      },
    });
    a = server.origin('a.test');
    const r = await runCli(['sitemaps', a, '--user-agent', 'ListBot/1.0', '--json', '--min-interval', '0', ...server.resolve.flatMap((e) => ['--resolve', e])]);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { url: `${a}/x`, lastmod: '2024-01-02', changefreq: null, priority: null, sitemap: `${a}/s.xml`, robotsUrl: `${a}/robots.txt`, allowed: true, reason: 'no-matching-rule', rule: null },
      { url: `${a}/y`, lastmod: null, changefreq: null, priority: null, sitemap: `${a}/s.xml`, robotsUrl: `${a}/robots.txt`, allowed: true, reason: 'no-matching-rule', rule: null },
    ]);
    expect(r.stderr).toContain(`sitemap ${a}/private/hidden.xml blocked`);
    expect(r.stderr).toMatch(/unsupported-scheme 1/);
    expect(r.stderr).toMatch(/2 sitemaps read, 0 failed, 1 blocked; 2 URLs found \(0 disallowed by robots.txt\)/);
    // A blocked sitemap: exit 1, and nothing was asked of the disallowed path.
    expect(r.code).toBe(1);
    expect(server.requests('a.test', '/private/hidden.xml')).toHaveLength(0);
  });

  it('puts each listed URL to robots.txt without fetching it: allowed and the deciding rule in --json, disallowed ones marked as comments in text', async () => {
    let a = '';
    server = await startVirtualHosts({
      'a.test': (req, res) => {
        const body: Record<string, string> = {
          '/robots.txt': `User-agent: *\nDisallow: /private/\nAllow: /private/open\nSitemap: ${a}/s.xml\nSitemap: ${a}/private/hidden.xml\n`,
          '/s.xml': urlset([`${a}/x`, `${a}/private/y`, `${a}/private/open`]),
        };
        const b = body[req.url ?? ''];
        if (b === undefined) return void res.writeHead(404).end();
        res.writeHead(200).end(b);
      },
    });
    a = server.origin('a.test');
    const args = ['sitemaps', a, '--user-agent', 'ListBot/1.0', '--min-interval', '0', ...server.resolve.flatMap((e) => ['--resolve', e])];
    const j = await runCli([...args, '--json']);
    const lines = j.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.url, l.allowed, l.reason, l.rule])).toEqual([
      [`${a}/x`, true, 'no-matching-rule', null],
      [`${a}/private/y`, false, 'disallowed-by-rule', { type: 'disallow', pattern: '/private/', line: 2 }],
      [`${a}/private/open`, true, 'allowed-by-rule', { type: 'allow', pattern: '/private/open', line: 3 }],
    ]);
    // One sitemap read and one blocked, said the same way on every line; no page was fetched.
    expect(j.stderr).toMatch(/: 1 sitemap read, 0 failed, 1 blocked; 3 URLs found \(1 disallowed by robots\.txt\)/);
    expect(j.code).toBe(1);

    const t = await runCli(args);
    expect(t.stdout.trim().split('\n')).toEqual([
      `${a}/x`,
      `# disallowed by ${a}/robots.txt line 2 (Disallow: /private/): ${a}/private/y`,
      `${a}/private/open`,
    ]);
    expect(server.log.map((r) => r.path).filter((p) => p !== '/robots.txt' && p !== '/s.xml')).toEqual([]);
  });

  it('bad usage exits 2', async () => {
    const r = await runCli(['sitemaps', 'ftp://x.test', '--user-agent', 'ListBot/1.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/robots-gate sitemaps: /);
    const n = await runCli(['sitemaps', 'http://x.test', '--user-agent', 'ListBot/1.0', '--max-urls-per-host', 'lots']);
    expect(n.code).toBe(2);
  });

  it('--product-token picks the group that decides each sitemap request', async () => {
    let a = '';
    server = await startVirtualHosts({
      'a.test': (req, res) => {
        const body: Record<string, string> = {
          '/robots.txt': `User-agent: ListBot\nDisallow: /maps/\n\nUser-agent: *\nAllow: /\n\nSitemap: ${a}/maps/s.xml\n`,
          '/maps/s.xml': urlset([`${a}/maps/x`]),
        };
        const b = body[req.url ?? ''];
        if (b === undefined) return void res.writeHead(404).end();
        res.writeHead(200).end(b);
      },
    });
    a = server.origin('a.test');
    const args = ['sitemaps', a, '--min-interval', '0', ...server.resolve.flatMap((e) => ['--resolve', e])];
    const named = await runCli([...args, '--user-agent', 'Mozilla/5.0 (X11) ListBot/1.0', '--product-token', 'ListBot']);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(`sitemap ${a}/maps/s.xml blocked`);
    expect(server.requests('a.test', '/maps/s.xml')).toHaveLength(0);
    const other = await runCli([...args, '--user-agent', 'OtherBot/1.0']);
    expect(other.code).toBe(0);
    expect(other.stdout.trim()).toBe(`${a}/maps/x`);
  });
});
