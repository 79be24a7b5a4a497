// `robots-gate crawl --browser` as a user runs it: rendered HTML saved, subresource decisions in
// the audit with the page they belonged to, nothing sent where robots.txt says no.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

let hosts: VirtualHosts;
let dir: string;
let port = 0;

const page = (name: string) =>
  `<!doctype html><html><head><script src="http://cdn.test:${port}/lib.js"></script></head><body><h1>${name}</h1>
<img src="http://ads.test:${port}/track/${name}.png"><script>document.querySelector('h1').dataset.by = window.lib</script></body></html>`;

beforeAll(async () => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-cli-browser-'));
  hosts = await startVirtualHosts({
    'site.test': site('User-agent: *\nDisallow: /private\n', (p) => (p === '/a' || p === '/b' ? page(p.slice(1)) : undefined)),
    'cdn.test': (req, res) => void res.writeHead(200, { 'content-type': 'text/javascript' }).end(req.url === '/robots.txt' ? 'User-agent: *\nAllow: /\n' : 'window.lib = "cdn";'),
    'ads.test': site('User-agent: *\nDisallow: /track/\n'),
  });
  port = hosts.port;
});
afterAll(async () => {
  await hosts?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('crawl --browser --screenshot: rendered HTML, screenshots, and an audit row per subresource decision', async () => {
  const origin = `http://site.test:${port}`;
  const list = path.join(dir, 'urls.txt');
  fs.writeFileSync(list, [`${origin}/a`, `${origin}/b`, `${origin}/private`].join('\n') + '\n');
  const out = path.join(dir, 'out');
  const res = await runCli(
    ['crawl', list, '--user-agent', 'RenderBot/1.0', '--out', out, '--min-interval', '50', '--browser', '--screenshot', ...hosts.resolve.flatMap((r) => ['--resolve', r])],
    { timeoutMs: 60_000 },
  );
  expect(res.stderr).not.toMatch(/Error/);
  expect(res.code).toBe(0);

  const docDir = path.join(out, `site.test_${port}`);
  for (const name of ['a', 'b']) {
    // Rendered: the allowed CDN script ran and the page's own script wrote what it set.
    expect(fs.readFileSync(path.join(docDir, name), 'utf8')).toContain(`<h1 data-by="cdn">${name}</h1>`);
    expect(fs.statSync(path.join(docDir, `${name}.png`)).size).toBeGreaterThan(100);
  }
  expect(fs.existsSync(path.join(docDir, 'private'))).toBe(false);
  expect(hosts.requests('ads.test').map((r) => r.path)).toEqual(['/robots.txt']);
  expect(hosts.requests('site.test', '/private')).toEqual([]);

  const reader = openAudit(out);
  try {
    const rows = reader.attempts();
    // The summary counts every row the crawl wrote, the subresources' too.
    expect(res.stdout).toMatch(/rendered pages' subresources: 4 requests decided \(2 fetched, 2 blocked\)/);
    expect(res.stdout).toContain(`${rows.length} audit rows`);
    const pages = rows.filter((r) => r.kind === 'page').map((r) => [r.url, r.outcome]);
    expect(pages.sort()).toEqual([
      [`${origin}/a`, 'fetched'],
      [`${origin}/b`, 'fetched'],
      [`${origin}/private`, 'blocked'],
    ]);
    const subs = rows.filter((r) => r.kind === 'subresource');
    for (const name of ['a', 'b']) {
      const mine = subs.filter((r) => r.parentUrl === `${origin}/${name}`);
      expect(mine.map((r) => [r.url, r.outcome, r.reason]).sort()).toEqual([
        [`http://ads.test:${port}/track/${name}.png`, 'blocked', 'disallowed-by-rule'],
        [`http://cdn.test:${port}/lib.js`, 'fetched', 'allowed-by-rule'],
      ]);
      const blocked = mine.find((r) => r.outcome === 'blocked')!;
      expect(blocked).toMatchObject({ ruleLine: 2, rulePattern: '/track/', robotsUrl: `http://ads.test:${port}/robots.txt` });
      expect(blocked.policySha256).toMatch(/^[0-9a-f]{64}$/);
    }
  } finally {
    reader.close();
  }
});

test('crawl --browser without Chromium: a clear error naming the package, exit 2', async () => {
  const list = path.join(dir, 'one.txt');
  fs.writeFileSync(list, `http://site.test:${port}/a\n`);
  const res = await runCli(['crawl', list, '--user-agent', 'RenderBot/1.0', '--out', path.join(dir, 'none'), '--browser', '--chromium', '/nonexistent/chromium']);
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/no Chromium at \/nonexistent\/chromium: install Debian's chromium package/);
  // Bad usage leaves nothing under --out (no empty audit a later run would count as an earlier one).
  expect(fs.existsSync(path.join(dir, 'none'))).toBe(false);
});

test("crawl --browser: a host's interval counts from the page's last request to it, its own subresources included", async () => {
  const slow = await startVirtualHosts({
    'own.test': async (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      if (req.url === '/style.css') {
        // The page's own stylesheet ends well after the page did.
        await new Promise((r) => setTimeout(r, 400));
        return void res.writeHead(200, { 'content-type': 'text/css' }).end('h1 { color: red }');
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><link rel="stylesheet" href="/style.css"><h1>${req.url}</h1>`);
    },
  });
  try {
    const origin = `http://own.test:${slow.port}`;
    const list = path.join(dir, 'own.txt');
    fs.writeFileSync(list, `${origin}/one\n${origin}/two\n`);
    const res = await runCli(
      ['crawl', list, '--user-agent', 'RenderBot/1.0', '--out', path.join(dir, 'own'), '--min-interval', '700', '--browser', ...slow.resolve.flatMap((r) => ['--resolve', r])],
      { timeoutMs: 60_000 },
    );
    expect(res.code).toBe(0);
    // At the server: /two waited the 700 ms floor after /one's stylesheet ended, not after /one.
    const seen = slow.requests('own.test');
    const css = seen.filter((r) => r.path === '/style.css');
    const two = seen.find((r) => r.path === '/two')!;
    expect(css.length).toBeGreaterThanOrEqual(1);
    expect(two.startedAt - css[0]!.endedAt!).toBeGreaterThanOrEqual(700 - 5);
  } finally {
    await slow.close();
  }
});
