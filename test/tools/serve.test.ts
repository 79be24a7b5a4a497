// `robots-gate serve` end to end: the built CLI as a subprocess, Debian's chromium driving the pages.
// Screenshots go to test-artifacts/ (tester.png, tester-5mb.png, audit.png).
import { rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { writeAuditFixture } from './audit-fixture.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { runCli, startServe, type ServeProcess } from './cli.js';
import { NOT_A_URL, runSmallCrawl } from './real-crawl.js';
import { startAll } from '../helpers/start-all.js';

const SITE_ROBOTS = 'User-agent: *\nDisallow: /private/\n\nUser-agent: SiteBot\nDisallow: /\nAllow: /public/\n';

let hosts: VirtualHosts;
let serve: ServeProcess;
let bare: ServeProcess;
let browser: Browser;
let dir: string;
let closedPort: number;

beforeAll(async () => {
  hosts = await startVirtualHosts({
    'site.test': (req, res) => {
      if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(SITE_ROBOTS);
      else res.writeHead(404).end();
    },
    'down.test': (_req, res) => void res.writeHead(503).end('maintenance'),
    'binary.test': (_req, res) => void res.writeHead(200).end(Buffer.from([0x55, 0x73, 0x65, 0x72, 0x2d, 0x61, 0x67, 0x65, 0x6e, 0x74, 0x3a, 0x20, 0x2a, 0x0a, 0xff, 0xfe, 0x00, 0x81, 0x0a, 0x44, 0x69, 0x73, 0x61, 0x6c, 0x6c, 0x6f, 0x77, 0x3a, 0x20, 0x2f, 0x78, 0x0a])),
    // What a forged /api/fetch would reach: it must never see a request.
    'forged.test': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow:\n'),
    // Accepts the request and never answers.
    'hang.test': () => new Promise<void>(() => undefined),
  });
  closedPort = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
  dir = writeAuditFixture();
  const resolve = [...hosts.resolve, `refused.test:${closedPort}:127.0.0.1`].flatMap((r) => ['--resolve', r]);
  await startAll([
    startServe([dir, '--timeout', '1500', ...resolve]).then((s) => (serve = s)),
    startServe([]).then((s) => (bare = s)),
    launchChromium().then((b) => (browser = b)),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([serve?.stop(), bare?.stop(), hosts?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openTester(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${serve.url}/`);
  // The sample file is evaluated on load.
  await page.locator('#verdicts [data-verdict]').first().waitFor();
  (page as Page & { errors?: string[] }).errors = errors;
  return page;
}

async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.fill(selector, '');
  await page.locator(selector).pressSequentially(text, { delay: 0 });
}

const verdicts = (page: Page) =>
  page.locator('#verdicts [data-verdict]').evaluateAll((els) => els.map((e) => [e.querySelector('.url')!.textContent, e.getAttribute('data-verdict')]));

describe('serve: the tester', () => {
  it('gives each URL its verdict, highlights the group and the deciding line, and shows lint findings in the margin', async () => {
    const page = await openTester();
    const robots = [
      'User-agent: *', // 1
      'Disallow: /', // 2
      '', // 3
      'User-agent: FooBot', // 4
      'Disallow: /search', // 5
      'Allow: /search/about', // 6
      'Disalow: /typo', // 7
      'Crawl-delay: 3', // 8
    ].join('\n');
    await page.fill('#robots', robots);
    await typeInto(page, '#ua', 'FooBot/2.1 (+https://foo.example/bot)');
    await page.fill('#urls', 'https://example.com/search?q=1\nhttps://example.com/search/about\nhttps://example.com/\n/typo/page\nnot a url');
    await expect.poll(() => verdicts(page)).toEqual([
      ['https://example.com/search?q=1', 'disallowed'],
      ['https://example.com/search/about', 'allowed'],
      ['https://example.com/', 'allowed'],
      ['/typo/page', 'disallowed'],
      ['not a url', 'invalid'],
    ]);
    await expect.poll(() => page.textContent('#ua-info')).toContain('Product token: FooBot, read from "FooBot/2.1" in the user agent · Crawl-delay for it: 3 s');
    // Choosing a verdict highlights the group that applied and the line that decided.
    await page.locator('#verdicts button').nth(1).click();
    await expect.poll(() => page.locator('#file-view .ln.decider').getAttribute('data-line')).toBe('6');
    expect(await page.locator('#file-view .ln.decider').getAttribute('class')).toContain('allow');
    expect(await page.locator('#file-view .ln.in-group').evaluateAll((els) => els.map((e) => e.getAttribute('data-line')))).toEqual(['4', '5', '6', '7', '8']);
    expect(await page.locator('#verdicts button').nth(1).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#verdicts button').nth(1).textContent()).toContain('Allow: /search/about on line 6, in the group for FooBot (line 4)');
    await page.locator('#verdicts button').nth(0).click();
    await expect.poll(() => page.locator('#file-view .ln.decider').getAttribute('data-line')).toBe('5');
    expect(await page.locator('#file-view .ln.decider').getAttribute('class')).toContain('disallow');
    // A root URL: no rule of FooBot's group matched (the * group does not apply to FooBot).
    await page.locator('#verdicts button').nth(2).click();
    await expect.poll(() => page.locator('#file-view .ln.decider').count()).toBe(0);
    expect(await page.locator('#verdicts button').nth(2).textContent()).toContain('No rule matched');
    // The misspelling is marked in the margin of line 7 and listed with its code.
    expect(await page.locator('#file-view .ln[data-line="7"] .sev.warning').count()).toBe(1);
    expect(await page.locator('#diagnostics [data-code="misspelled-directive"]').textContent()).toContain('line 7');
    await page.locator('#verdicts button').nth(1).click();
    await page.screenshot({ path: path.join(ARTIFACTS, 'tester.png'), fullPage: true });
    expect((page as Page & { errors?: string[] }).errors).toEqual([]);
    await page.close();
  });

  it('updates as you type', async () => {
    const page = await openTester();
    await page.fill('#robots', 'User-agent: *\n');
    await page.fill('#urls', 'https://example.com/new/page');
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/new/page', 'allowed']]);
    await page.locator('#robots').press('End');
    await page.locator('#robots').pressSequentially('Disallow: /new', { delay: 5 });
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/new/page', 'disallowed']]);
    await expect.poll(() => page.locator('#file-view .ln.decider').getAttribute('data-line')).toBe('2');
    // The parser runs in the page: with the network gone, verdicts still follow the text.
    await page.context().setOffline(true);
    await page.locator('#robots').pressSequentially('\nAllow: /new/page', { delay: 5 });
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/new/page', 'allowed']]);
    await expect.poll(() => page.locator('#file-view .ln.decider').getAttribute('data-line')).toBe('3');
    await page.context().setOffline(false);
    await page.close();
  });

  it('fetches a robots.txt from a URL, and says what happened when that fails', async () => {
    const page = await openTester();
    // No scheme: https is assumed, and the server says what went wrong (site.test has no TLS here).
    await page.fill('#fetch-url', `site.test:${hosts.port}`);
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status')).toContain(`Could not fetch: https://site.test:${hosts.port}/robots.txt`);
    await page.fill('#fetch-url', `${hosts.origin('site.test')}/some/page`);
    await page.click('#fetch-btn');
    await expect.poll(() => page.inputValue('#robots')).toBe(SITE_ROBOTS);
    expect(await page.textContent('#fetch-status')).toContain(`${hosts.origin('site.test')}/robots.txt: 200`);
    await typeInto(page, '#ua', 'SiteBot');
    await page.fill('#urls', `${hosts.origin('site.test')}/public/a\n${hosts.origin('site.test')}/other`);
    await expect.poll(() => verdicts(page)).toEqual([
      [`${hosts.origin('site.test')}/public/a`, 'allowed'],
      [`${hosts.origin('site.test')}/other`, 'disallowed'],
    ]);

    // 503: unreachable; the text stays as it was.
    await page.fill('#fetch-url', hosts.origin('down.test'));
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status')).toContain('503. Unreachable');
    expect(await page.inputValue('#robots')).toBe(SITE_ROBOTS);

    // Connection refused and a server that never answers (serve runs with --timeout 1500).
    await page.fill('#fetch-url', `http://refused.test:${closedPort}/`);
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status')).toMatch(/Could not fetch: .*ECONNREFUSED/);
    await page.fill('#fetch-url', hosts.origin('hang.test'));
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status'), { timeout: 10_000 }).toMatch(/Could not fetch: .*ETIMEDOUT.*1500 ms/);
    expect(await page.inputValue('#robots')).toBe(SITE_ROBOTS);
    await page.fill('#fetch-url', 'file:///etc/passwd');
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status')).toContain('only http and https');

    // Binary bytes: parsed as served; the invalid UTF-8 is reported.
    await page.fill('#fetch-url', hosts.origin('binary.test'));
    await page.click('#fetch-btn');
    await expect.poll(() => page.locator('#diagnostics [data-code="non-utf8"]').count()).toBe(1);
    await page.fill('#urls', `${hosts.origin('binary.test')}/x`);
    await expect.poll(() => verdicts(page)).toEqual([[`${hosts.origin('binary.test')}/x`, 'disallowed']]);
    await page.close();
  });

  it('stays responsive with a 5 MB paste and with binary text', async () => {
    const page = await openTester();
    await page.fill('#urls', 'https://example.com/p/1\nhttps://example.com/zzz');
    // 5 MB, ~110,000 lines, pasted (a real paste event, with the text on its clipboard data).
    await page.evaluate(() => {
      let body = 'User-agent: *\nDisallow: /p/\n';
      const filler = 'Disallow: /some/rather/long/path/that/repeats/';
      const parts: string[] = [body];
      let size = body.length;
      for (let i = 0; size < 5 * 1024 * 1024; i++) {
        const line = `${filler}${i}\n`;
        parts.push(line);
        size += line.length;
      }
      body = parts.join('');
      const data = new DataTransfer();
      data.setData('text/plain', body);
      const ta = document.getElementById('robots') as HTMLTextAreaElement;
      ta.focus();
      ta.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    // The page answers while the worker parses.
    const t0 = Date.now();
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
    expect(Date.now() - t0).toBeLessThan(3000);
    await expect.poll(() => page.locator('#diagnostics [data-code="truncated"]').count(), { timeout: 20_000 }).toBe(1);
    expect(await verdicts(page)).toEqual([
      ['https://example.com/p/1', 'disallowed'],
      ['https://example.com/zzz', 'allowed'],
    ]);
    // Only a window of the file is drawn.
    expect(await page.locator('#file-view .ln').count()).toBeLessThanOrEqual(2000);
    expect(await page.textContent('#file-view')).toContain('later lines not shown');
    // Too large to edit: held outside the textarea, which says so.
    expect(await page.inputValue('#robots')).toBe('');
    expect(await page.textContent('#robots-note')).toMatch(/^5\.0 MiB loaded: too large to edit here/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'tester-5mb.png') });

    // Binary text pasted: NULs, control characters, lone surrogates. No crash, still verdicts.
    await page.evaluate(() => {
      let s = 'User-agent: *\nDisallow: /b\n';
      for (let i = 0; i < 5000; i++) s += String.fromCharCode((i * 7919) % 0xffff);
      const ta = document.getElementById('robots') as HTMLTextAreaElement;
      ta.value = s;
      ta.dispatchEvent(new Event('input'));
    });
    await page.fill('#urls', 'https://example.com/b');
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/b', 'disallowed']]);
    // Editing replaced the held 5 MB paste.
    expect(await page.textContent('#robots-note')).toBe('');
    expect(await page.locator('#status.error').count()).toBe(0);
    expect((page as Page & { errors?: string[] }).errors).toEqual([]);
    await page.close();
  });
});

const TOKEN = 'x-robots-gate-token';
/** The token a served tester page carries (what only a same-origin reader can see). */
async function pageToken(base = serve.url): Promise<string> {
  const html = await (await fetch(`${base}/`)).text();
  return /<meta name="robots-gate-token" content="([^"]*)">/.exec(html)?.[1] ?? '';
}

describe('serve: the server', () => {
  const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, { method, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.once('error', reject);
      req.end();
    });

  it('binds loopback and serves only its own files', async () => {
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await get(`${serve.url}/`)).status).toBe(200);
    for (const p of ['/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/assets/../../package.json', '/audit.sqlite', `/${path.basename(dir)}/audit.sqlite`, '/dist/cli/main.js']) {
      const r = await get(`${serve.url}${p}`);
      expect(r.status, p).toBe(404);
      expect(r.body).not.toContain('root:');
    }
    // Another site's name pointed at 127.0.0.1 (DNS rebinding) gets nothing.
    expect((await get(`${serve.url}/api/audit`, { host: 'evil.example' })).status).toBe(421);
    expect((await get(`${serve.url}/api/audit`, {}, 'POST')).status).toBe(405);
    expect((await get(`${serve.url}/api/fetch?url=${encodeURIComponent('ftp://x/')}`, { [TOKEN]: await pageToken() })).status).toBe(400);
    expect((await get(`${serve.url}/api/nope`)).status).toBe(404);
    // Still up.
    expect((await get(`${serve.url}/api/audit`)).status).toBe(200);
  });

  it('refuses cross-site requests to its API, and /api/fetch without the token of its own page, with 403', async () => {
    const forged = `${serve.url}/api/fetch?url=${encodeURIComponent(hosts.origin('forged.test'))}`;
    const token = await pageToken();
    expect(token).toMatch(/^[\w-]{20,}$/);
    for (const headers of <Record<string, string>[]>[
      {},
      { [TOKEN]: 'guessed' },
      { [TOKEN]: token, origin: 'http://evil.example' },
      { [TOKEN]: token, origin: 'null' },
      { [TOKEN]: token, 'sec-fetch-site': 'cross-site' },
      { [TOKEN]: token, 'sec-fetch-site': 'same-site' },
    ]) {
      const r = await get(forged, headers);
      expect([r.status, JSON.stringify(headers)]).toEqual([403, JSON.stringify(headers)]);
      expect(r.body).toMatch(/refused/);
    }
    expect((await get(`${serve.url}/api/audit`, { origin: 'http://evil.example' })).status).toBe(403);
    expect(hosts.requests('forged.test')).toEqual([]);
    // A new run has a new token.
    expect(await pageToken(bare.url)).not.toBe(token);
    // The token of its own page, sent from its own origin, is what the tester does.
    const ok = await get(forged, { [TOKEN]: token, origin: serve.url, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(hosts.requests('forged.test')).toHaveLength(1);
  });

  it('a page on another origin cannot make it send a request (Chromium)', async () => {
    // Another port on the same address is the same site; localhost is another site.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>evil</title><body><script>
        const t = new URLSearchParams(location.search).get('t');
        fetch(t, { mode: 'no-cors' }).catch(() => {});
        fetch(t, { headers: { 'x-robots-gate-token': 'guessed' } }).catch(() => {});
        new Image().src = t + '&img';
        const a = document.createElement('a'); a.id = 'go'; a.href = t + '&nav'; a.textContent = 'go'; document.body.append(a);
      </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const page = await browser.newPage().catch(async (err: unknown) => {
      evil.close();
      throw err;
    });
    try {
      const port = (evil.address() as net.AddressInfo).port;
      const before = hosts.requests('forged.test').length;
      const forged = `${serve.url}/api/fetch?url=${encodeURIComponent(hosts.origin('forged.test'))}`;
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
        const statuses: number[] = [];
        const seen: string[] = [];
        page.on('response', (r) => {
          seen.push(`resp ${r.status()} ${r.url().slice(-8)}`);
          if (r.url().startsWith(`${serve.url}/api/fetch`)) statuses.push(r.status());
        });
        await page.goto(`${origin}/?t=${encodeURIComponent(forged)}`);
        await page.waitForLoadState('networkidle');
        const nav = page.waitForResponse((r) => r.url().endsWith('&nav'));
        await page.click('#go');
        expect((await nav).status()).toBe(403);
        // The no-cors fetch and the navigation; the fetch with a header dies at its preflight, and
        // Chromium reports no response for an image that is JSON.
        expect(statuses.length, `${origin}: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
        expect(new Set(statuses), origin).toEqual(new Set([403]));
        page.removeAllListeners('response');
      }
      expect(hosts.requests('forged.test').length).toBe(before);
    } finally {
      await page.close();
      await new Promise<void>((resolve) => evil.close(() => resolve()));
    }
  });

  it('answers /favicon.ico, so no page load logs a 404 in the console', async () => {
    const icon = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      http.get(`${serve.url}/favicon.ico`, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      }).once('error', reject);
    });
    expect(icon.status).toBe(200);
    expect(icon.type).toBe('image/svg+xml');
    expect(icon.body).toMatch(/^<svg /);
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('response', (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`)));
    page.on('console', (m) => void (m.type() === 'error' && failed.push(m.text())));
    for (const p of ['/', '/audit']) {
      await page.goto(`${serve.url}${p}`);
      await page.waitForLoadState('networkidle');
    }
    expect(failed).toEqual([]);
    await page.close();
  });

  it('refuses to start on a DIR without an audit, and on a taken port', async () => {
    await expect(startServe([path.join(dir, 'no-such-dir')])).rejects.toThrow(/exited with 1: robots-gate serve: cannot read audit directory/);
    const port = new URL(serve.url).port;
    const r = await runCli(['serve', '--port', port]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('EADDRINUSE');
  });

  it('without a DIR, the audit browser says how to give one', async () => {
    const r = await get(`${bare.url}/api/audit`);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).error).toContain('without an audit DIR');
    const page = await browser.newPage();
    await page.goto(`${bare.url}/audit`);
    await expect.poll(() => page.textContent('#audit-status')).toContain('without an audit DIR');
    await page.close();
  });
});

describe('serve: the audit browser', () => {
  it('lists runs and hosts, diffs a host\'s policy versions with the boundary time, and lists blocked URLs with their rule', async () => {
    const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${serve.url}/audit`);
    await expect.poll(() => page.textContent('#audit-status')).toContain('7 requests sent to 2 hosts, 9 URLs decided');
    expect(await page.locator('#run option').allTextContents()).toEqual(['All runs', expect.stringContaining('run-fixture-1')]);
    const hostRows = await page.locator('#hosts tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("td")).map((td) => td.textContent)));
    expect(hostRows).toEqual([
      // Requests sent, then URLs by outcome: news.example's 503 was retried and fetched.
      ['news.example', '3', '2', '1', '0', '1'],
      ['shop.example', '4', '4', '2', '0', '2'],
    ]);
    // Lines of the URL list that were not URLs: their own list, no nameless host.
    expect(await page.locator('#hosts button[data-host=""]').count()).toBe(0);
    expect(await page.textContent('#audit-status')).toContain('2 lines were not a URL.');
    expect(await page.isVisible('#not-urls')).toBe(true);
    expect(await page.textContent('#not-urls h2')).toBe('Lines that were not URLs: 2');
    expect(await page.locator('#not-urls tbody tr td:first-child').allTextContents()).toEqual(['not a url at all', 'https://user:***@shop.example/']);
    await page.fill('#host-filter', 'shop');
    await expect.poll(() => page.locator('#hosts tbody tr').count()).toBe(1);
    await page.click('#hosts button[data-host="shop.example"]');
    await expect.poll(() => page.locator('#versions tbody tr').count()).toBe(2);
    await expect.poll(() => page.textContent('#boundary')).toContain('Changed at 2026-11-30T08:00:00.600Z (run run-fixture-1)');
    const diff = await page.locator('#diff > div').evaluateAll((els) => els.map((e) => [e.getAttribute('data-kind'), e.textContent]));
    expect(diff.filter(([k]) => k !== 'same')).toEqual([['added', '3+ Disallow: /checkout']]);
    const blockedRows = await page.locator('#blocked tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("td")).map((td) => td.textContent)));
    expect(blockedRows.map((r) => [r[0], r[2], r[3]])).toEqual([
      ['https://shop.example/cart', 'line 2: /cart', '#1'],
      ['https://shop.example/checkout', 'line 3: /checkout', '#2'],
    ]);
    // Requests governed by each version.
    expect(await page.locator('#versions tbody tr td:nth-child(5)').allTextContents()).toEqual(['4', '2']);
    expect(await page.locator('#versions tbody tr td:nth-child(2)').allTextContents()).toEqual(['2026-11-30T08:00:00.000Z', '2026-11-30T08:00:00.600Z']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'audit.png'), fullPage: true });
    // Comparing a version with itself shows no change.
    await page.selectOption('#diff-from', '1');
    expect(await page.locator('#diff > div[data-kind="added"], #diff > div[data-kind="removed"]').count()).toBe(0);
    // A host with one version.
    await page.fill('#host-filter', '');
    await page.click('#hosts button[data-host="news.example"]');
    await expect.poll(() => page.textContent('#boundary')).toContain('One version of robots.txt governed every request');
    // One version: its text once, numbered, with no diff marks and no pickers to compare with.
    expect(await page.isVisible('#diff-pickers')).toBe(false);
    expect(await page.locator('#diff > div').allTextContents()).toEqual(['1User-agent: *', '2Disallow: /drafts/']);
    expect(await page.locator('#diff [data-kind]').count()).toBe(0);
    expect(await page.getAttribute('#boundary', 'class')).toContain('single');
    await page.screenshot({ path: path.join(ARTIFACTS, 'audit-one-version.png'), fullPage: true });
    // Back to a host with two versions: the pickers and the diff return.
    await page.click('#hosts button[data-host="shop.example"]');
    await expect.poll(() => page.isVisible('#diff-pickers')).toBe(true);
    await expect.poll(() => page.locator('#diff [data-kind="added"]').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('on a real crawl\'s DIR: the changed robots.txt and the URL it blocked (screenshot: test-artifacts/audit-crawl.png)', async () => {
    const crawlDir = await runSmallCrawl();
    // Stopped however the rest fails, a browser page that will not open included.
    const crawlServe = await startServe([crawlDir]);
    try {
      const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
      try {
        await page.goto(`${crawlServe.url}/audit`);
        await expect.poll(() => page.textContent('#audit-status')).toContain('8 requests sent to 2 hosts, 11 URLs decided');
        expect(await page.locator('#hosts tbody button').count()).toBe(2);
        expect(await page.textContent('#not-urls h2')).toBe('Lines that were not URLs: 1');
        expect(await page.locator('#not-urls tbody td:first-child').allTextContents()).toEqual([NOT_A_URL]);
        const shop = page.locator('#hosts button[data-host^="shop.test:"]');
        await shop.click();
        await expect.poll(() => page.locator('#versions tbody tr').count()).toBe(2);
        await expect.poll(() => page.textContent('#boundary')).toMatch(/^Changed at \d{4}-\d\d-\d\dT[\d:.]+Z \(run \S+\): requests that started after this were governed by #2\.$/);
        const changed = await page.locator('#diff > div:not([data-kind="same"])').evaluateAll((els) => els.map((e) => e.textContent));
        expect(changed).toEqual(['3+ Disallow: /checkout']);
        const blockedRows = await page.locator('#blocked tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("td")).map((td) => td.textContent)));
        expect(blockedRows.map((r) => [new URL(r[0]!).pathname, r[2]])).toEqual([
          ['/cart', 'line 2: /cart'],
          ['/checkout', 'line 3: /checkout'],
        ]);
        // /checkout is disallowed only by the second version.
        expect(blockedRows[1]![3]).toBe('#2');
        await page.screenshot({ path: path.join(ARTIFACTS, 'audit-crawl.png'), fullPage: true });
      } finally {
        await page.close();
      }
    } finally {
      await crawlServe.stop();
      rmSync(path.dirname(crawlDir), { recursive: true, force: true });
    }
  });
});
