// `robots-gate report`: built from a real audit DIR (written by the SQLite sink), checked for its
// contents, run through the CLI, and looked at in a real browser (screenshot in test-artifacts/).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyVersions, timeline } from '../../src/report/crawl-record.js';
import { buildReportHtml } from '../../src/report/html.js';
import { loadCrawlRecord } from '../../src/report/load.js';
import { SHA, T0, writeAuditFixture } from './audit-fixture.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { runCli } from './cli.js';
import { NOT_A_URL, runSmallCrawl } from './real-crawl.js';

let dir: string;
beforeAll(() => {
  dir = writeAuditFixture();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('report', () => {
  it('has the totals, the per-host table, the timelines, the policy change with its diff, and the blocked URLs', () => {
    const html = buildReportHtml(loadCrawlRecord(dir), { title: 'fixture crawl', generatedAtMs: 0 });
    const totals = html.slice(html.indexOf('id="totals"'), html.indexOf('<h2>Hosts'));
    // Requests sent leave out blocked URLs, for which nothing was sent.
    expect(totals).toContain('<b>7</b><span>requests sent (robots.txt aside)</span>');
    // Each URL once, by what it settled as: news.example/world's 503 was retried and fetched.
    expect(totals).toContain('<b>9</b><span>URLs decided</span>');
    expect(totals).toContain('<b>3</b><span>blocked by robots.txt (not sent)</span>');
    expect(totals).toContain('<b>0</b><span>errors</span>');
    expect(totals).toContain('<b>1</b><span>robots.txt changes</span>');
    // Per-host rows: shop.example had 6 URLs decided: 4 requests sent, 2 blocked (the column counts
    // requests as the totals do, not URLs); two robots.txt versions.
    const shopRow = /<tr><td class="host"><a href="#host-shop\.example">shop\.<wbr>example<\/a><\/td>(.*?)<\/tr>/.exec(html)![1]!;
    const cells = [...shopRow.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]);
    expect(cells.slice(0, 6)).toEqual(['4', '4', '2', '0', '0', '0']);
    expect(cells.at(-1)).toBe('2');
    expect(shopRow).toContain('crawl-delay ×5');
    // news.example: its 503 was retried and fetched: 3 requests sent, 2 URLs fetched, no error, as in the totals.
    const newsCells = [...(/<tr><td class="host"><a href="#host-news\.example">news\.<wbr>example<\/a><\/td>(.*?)<\/tr>/.exec(html)![1]!).matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]);
    expect(newsCells.slice(0, 6)).toEqual(['3', '2', '1', '0', '0', '0']);
    // The timeline shows each request against its interval, and the wait sources.
    expect(html).toContain('aria-label="Timeline of 6 requests to shop.example');
    expect(html).toContain('aria-label="Timeline of 4 requests to news.example');
    expect(html).toMatch(/interval 300 ms \(backoff\)/);
    expect(html).toMatch(/interval 100 ms \(floor\)/);
    const newsRow = /<tr><td class="host"><a href="#host-news\.example">news\.<wbr>example<\/a><\/td>(.*?)<\/tr>/.exec(html)![1]!;
    expect(newsRow).toContain('backoff ×1');
    // The policy change: boundary time, hashes, and the added line in the diff.
    const changes = html.slice(html.indexOf('id="changes"'));
    expect(changes).toContain('2026-11-30T08:00:00.600Z');
    expect(changes).toContain(SHA.shopV1.slice(0, 12));
    expect(changes).toContain(SHA.shopV2.slice(0, 12));
    expect(changes).toMatch(/<div class="added">.*?\+ Disallow: \/checkout<\/div>/);
    // Blocked URLs with the deciding rule.
    expect(html).toMatch(/https:\/\/shop\.example\/checkout<\/td><td class="nw">disallowed-by-rule<\/td><td class="num">3<\/td><td class="url mono">\/checkout<\/td>/);
    expect(html).toMatch(/https:\/\/news\.example\/drafts\/x<\/td><td class="nw">disallowed-by-rule<\/td><td class="num">2<\/td>/);
  });

  it('lists lines of the URL list that were not URLs on their own, never as a nameless host', () => {
    const html = buildReportHtml(loadCrawlRecord(dir));
    expect(html).not.toContain('href="#host-"');
    expect(html).not.toContain('<h3></h3>');
    expect(html).not.toContain('id="host-"');
    expect(html.match(/<tr><td class="host"><a href="#host-/g)).toHaveLength(2);
    expect(html).toContain('<b>2</b><span>hosts</span>');
    // Counted once, in the skipped card, not in a card of their own too.
    expect(html).toContain('<b>2</b><span>skipped (2 of them input lines that are not URLs)</span>');
    expect(html).not.toContain('<span>lines that were not URLs</span>');
    const section = html.slice(html.indexOf('id="not-urls"'), html.indexOf('</section>', html.indexOf('id="not-urls"')));
    expect(section).toContain('<h2>Lines that were not URLs: 2</h2>');
    expect(section).toContain('<td class="url mono">not a url at all</td><td class="nw">invalid-url</td>');
    expect(section).toContain('<td class="url mono">https://user:***@shop.example/</td><td class="nw">credentials</td>');
    // A crawl whose lines were all URLs has no such section.
    const record = loadCrawlRecord(dir);
    const clean = buildReportHtml({ ...record, attempts: record.attempts.filter((a) => a.host !== '') });
    expect(clean).not.toContain('not-urls');
    expect(clean).not.toContain('lines that were not URLs');
  });

  it('labels short timelines with distinct ticks and draws a lone request narrower than the plot', () => {
    const record = loadCrawlRecord(dir);
    const template = record.attempts.find((a) => a.host === 'news.example')!;
    const at = (o: number) => new Date(T0 + o).toISOString();
    const quiet = { waitReason: null, intervalMs: null };
    const fast = [0, 0, 1, 1, 2].map((o, i) => ({ ...template, ...quiet, host: 'fast.example', url: `https://fast.example/${i}`, startedAt: at(o), endedAt: at(o) }));
    const lone = { ...template, ...quiet, host: 'lone.example', url: 'https://lone.example/', startedAt: at(0), endedAt: at(40) };
    const html = buildReportHtml({ ...record, attempts: [...fast, lone] });
    const section = (host: string) => html.slice(html.indexOf(`id="host-${host}"`), html.indexOf('</section>', html.indexOf(`id="host-${host}"`)));
    for (const host of ['fast.example', 'lone.example']) {
      const labels = [...section(host).matchAll(/<text class="tick"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
      expect(labels.length, host).toBeGreaterThanOrEqual(2);
      expect(new Set(labels).size, `${host}: ${labels.join(', ')}`).toBe(labels.length);
    }
    // The plot runs from x=230 to x=988 (758 px); the lone 40 ms request gets a quarter of it at most.
    const bar = /<rect x="230\.0" y="\d+" width="([\d.]+)"/.exec(section('lone.example'))!;
    expect(Number(bar[1])).toBeLessThanOrEqual(758 / 4 + 1);
    expect(Number(bar[1])).toBeGreaterThan(100);
  });

  it('is self-contained: no scripts, no external resources', () => {
    const html = buildReportHtml(loadCrawlRecord(dir));
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(html).not.toMatch(/\s(src|href)="(https?:)?\/\//i);
  });

  it('flags a request sent before its interval had passed', () => {
    const record = loadCrawlRecord(dir);
    const contact = record.attempts.find((a) => a.url === 'https://shop.example/contact')!;
    // /contact ended at +845 ms; with a 200 ms interval, a request at +905 is 60 ms after it: too soon.
    const early = { ...contact, url: 'https://shop.example/too-soon', startedAt: new Date(T0 + 905).toISOString(), endedAt: new Date(T0 + 925).toISOString() };
    const html = buildReportHtml({ ...record, attempts: [...record.attempts, early] });
    const shopRow = /<tr><td class="host"><a href="#host-shop\.example">shop\.<wbr>example<\/a><\/td>(.*?)<\/tr>/.exec(html)![1]!;
    expect(shopRow).toContain('<td class="num warn">1</td>');
    expect(html).toContain('started 60 ms after the previous response: TOO SOON');
    expect(buildReportHtml(record)).not.toContain('TOO SOON');
  });

  it('a robots.txt fetch is a previous response: the first request after it gets its band, and one sent too soon after it is flagged', () => {
    const record = loadCrawlRecord(dir);
    const byUrl = (entries: ReturnType<typeof timeline>, p: string) => entries.find((e) => new URL(e.url).pathname === p)!;
    // /contact (+805) after the refetch that ended at +600, under 200 ms: its band starts there.
    const contact = byUrl(timeline(record, 'shop.example'), '/contact');
    expect([contact.prevEndMs! - T0, contact.gapMs, contact.breach]).toEqual([600, 205, false]);
    // The host's first request, sent 10 ms after robots.txt under a 200 ms interval, is too soon.
    const first = record.attempts.find((a) => a.url === 'https://shop.example/')!;
    const hurried = { ...record, attempts: record.attempts.map((a) => (a === first ? { ...a, waitReason: 'crawl-delay' as const, intervalMs: 200 } : a)) };
    expect(byUrl(timeline(hurried, 'shop.example'), '/')).toMatchObject({ prevEndMs: T0, gapMs: 10, breach: true });
  });

  it('stays a file a browser can open for a crawl of 20,000 hosts', () => {
    const record = loadCrawlRecord(dir);
    const template = record.attempts[0]!;
    const attempts = [];
    for (let h = 0; h < 20_000; h++) {
      for (let i = 0; i < 5; i++) {
        const at = new Date(T0 + h + i * 1000).toISOString();
        attempts.push({ ...template, host: `h${h}.example`, url: `https://h${h}.example/${i}`, startedAt: at, endedAt: at, policySha256: null });
      }
    }
    const html = buildReportHtml({ attempts, policies: [], changes: [] });
    expect(html).toContain('<b>100000</b><span>URLs decided</span>');
    expect(html).toContain('The 2000 hosts with the most requests are listed; 18000 more are not.');
    expect(html).toContain('Timelines are drawn for the 100 hosts with the most requests; 19900 more are not drawn.');
    expect(html.match(/<svg /g)).toHaveLength(100);
    expect(html.length).toBeLessThan(10_000_000);
  });

  it('a body served by two origins counts as a version of each, with each one\'s own robots.txt URL', () => {
    const record = loadCrawlRecord(dir);
    const news = record.attempts.filter((a) => a.host === 'news.example');
    const mirror = news.map((a) => ({ ...a, host: 'mirror.example', url: a.url.replace('news.example', 'mirror.example'), robotsUrl: 'https://mirror.example/robots.txt' }));
    const both = { ...record, attempts: [...record.attempts, ...mirror] };
    const versions = policyVersions(both, 'mirror.example');
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ sha256: SHA.news, robotsUrl: 'https://mirror.example/robots.txt', governed: 4 });
    expect(policyVersions(both, 'news.example')).toEqual([expect.objectContaining({ sha256: SHA.news, robotsUrl: 'https://news.example/robots.txt', governed: 4 })]);
  });

  it('escapes what the crawl recorded', () => {
    const record = loadCrawlRecord(dir);
    const evil = { ...record.attempts[0]!, url: 'https://shop.example/<script>alert(1)</script>', outcome: 'blocked' as const };
    const html = buildReportHtml({ ...record, attempts: [...record.attempts, evil] });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('runs from the CLI: --html FILE writes the file; a DIR without an audit exits 3 (nothing to read, as `audit`), and --help says so', async () => {
    const out = path.join(os.tmpdir(), `rg-report-${process.pid}.html`);
    const ok = await runCli(['report', dir, '--html', out]);
    expect(ok.stderr).toContain(`wrote ${out}`);
    expect(ok.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<h1>Crawl report</h1>');
    expect(html).toContain('shop.example');
    rmSync(out);
    const stdout = await runCli(['report', dir]);
    expect(stdout.code).toBe(0);
    expect(stdout.stdout.startsWith('<!doctype html>')).toBe(true);
    const empty = await runCli(['report', os.tmpdir() + '/definitely-not-a-crawl-dir']);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toMatch(/robots-gate report: nothing to read: .*definitely-not-a-crawl-dir/);
    expect(existsSync(out)).toBe(false);
    const audit = await runCli(['audit', os.tmpdir() + '/definitely-not-a-crawl-dir']);
    expect(audit.code).toBe(empty.code);
    const help = await runCli(['report', '--help']);
    expect(help.stdout).toMatch(/^\s+3\s+nothing to read/m);
    // A FILE that cannot be written is still 1, after reading the audit.
    const unwritable = await runCli(['report', dir, '--html', path.join(os.tmpdir(), 'no-such-dir-rg', 'r.html')]);
    expect(unwritable.code).toBe(1);
  });

  it('renders in a browser (screenshot: test-artifacts/report.png)', async () => {
    const html = buildReportHtml(loadCrawlRecord(dir), { title: 'fixture crawl' });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      await page.setContent(html);
      expect(await page.locator('#hosts tbody tr').count()).toBe(2);
      expect(await page.locator('svg[role=img]').count()).toBe(2);
      await page.screenshot({ path: path.join(ARTIFACTS, 'report.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it('fits a 1280 px window with long host names and URLs: no page scrollbar, short values on one line (screenshot: test-artifacts/report-wide.png)', async () => {
    const record = loadCrawlRecord(dir);
    const long = 'a-rather-long-subdomain.of-a-site-with-a-long-name.example.co.uk:37841';
    const extra = record.attempts.filter((a) => a.host === 'shop.example').map((a) => ({
      ...a, host: long, url: a.url.replace('shop.example', long) + '/and/a/very/long/path/that/goes/on?with=a&query=string&that=never&ends=1',
      bytes: 185_000,
    }));
    const html = buildReportHtml({ ...record, attempts: [...record.attempts, ...extra] });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.setContent(html);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
        hosts: document.querySelector('#hosts')!.getBoundingClientRect().width, box: document.querySelector('#hosts')!.parentElement!.clientWidth }));
      expect(widths.page).toBe(widths.view);
      expect(widths.hosts).toBeLessThanOrEqual(widths.box);
      // One line each: a wait source with its count, a size, a card's value.
      const lines = await page.evaluate(() => {
        const oneLine = (e: Element) => e.getClientRects().length === 1 && e.getBoundingClientRect().height < 1.6 * parseFloat(getComputedStyle(e).fontSize) * 1.3;
        const waits = Array.from(document.querySelectorAll('#hosts td span.nw'));
        const sizes = Array.from(document.querySelectorAll("#hosts td.num:not(.interval)"));
        const cards = Array.from(document.querySelectorAll('.card b'));
        return { waits: waits.length && waits.every(oneLine), sizes: sizes.every((e) => {
          // A cell is as tall as its row: count the lines of its text instead.
          const range = document.createRange();
          range.selectNodeContents(e);
          return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size === 1;
        }), cards: cards.every(oneLine) };
      });
      expect(lines).toEqual({ waits: true, sizes: true, cards: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-wide.png'), fullPage: false });
    } finally {
      await browser.close();
    }
  });

  it('reports a real crawl whose robots.txt changed mid-crawl (screenshot: test-artifacts/report-crawl.png)', async () => {
    const crawlDir = await runSmallCrawl();
    try {
      const out = path.join(ARTIFACTS, 'report-crawl.html');
      const r = await runCli(['report', crawlDir, '--html', out]);
      expect(r.code, r.stderr).toBe(0);
      const html = readFileSync(out, 'utf8');
      expect(html).toMatch(/<b>11<\/b><span>URLs decided<\/span>/);
      expect(html).toContain('<h2>Lines that were not URLs: 1</h2>');
      expect(html).toContain(`<td class="url mono">${NOT_A_URL}</td><td class="nw">invalid-url</td>`);
      expect(html).toMatch(/<b>3<\/b><span>blocked by robots.txt \(not sent\)<\/span>/);
      expect(html).toMatch(/<b>1<\/b><span>robots.txt changes<\/span>/);
      expect(html).toMatch(/<div class="added">.*?\+ Disallow: \/checkout<\/div>/);
      expect(html).toMatch(/\/checkout<\/td><td class="nw">disallowed-by-rule<\/td><td class="num">3<\/td>/);
      // Every request in the crawl kept its interval: nothing was sent too soon.
      expect(html).not.toContain('TOO SOON');
      expect(html).toMatch(/interval \d+ ms \(crawl-delay\)/);
      expect(html).toMatch(/interval \d+ ms \(floor\)/);
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        await page.goto(`file://${out}`);
        expect(await page.locator('#hosts tbody tr').count()).toBe(2);
        expect(await page.locator('h3').evaluateAll((hs) => hs.filter((h) => !h.textContent!.trim()).length)).toBe(0);
        await page.screenshot({ path: path.join(ARTIFACTS, 'report-crawl.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    } finally {
      rmSync(path.dirname(crawlDir), { recursive: true, force: true });
    }
  });
});
