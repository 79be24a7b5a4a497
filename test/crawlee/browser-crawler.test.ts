// robots-gate/crawlee with real PlaywrightCrawler and PuppeteerCrawler over Debian's Chromium:
// the page's own navigation is decided before it runs, and every request the page makes
// (subresources, redirect hops) through the browser gates; the servers' logs say what was sent.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { gateCrawler, type RobotsSkip } from '../../src/crawlee/index.js';
import { AttemptRows } from '../helpers/attempt-rows.js';
import { startOrigins, type Origins } from '../browser/fixtures.js';
import { crawlers } from './crawlers.js';

log.setLevel(LogLevel.ERROR);
const UA = 'CrawleeGateBot/1.0 (+https://example.test/bot)';
const H = '127.0.0.1';

let o: Origins;
beforeAll(async () => {
  o = await startOrigins();
});
afterAll(() => o?.close());


describe.each(crawlers)('%s gated by robots-gate', (name, make) => {
  test("a disallowed URL is skipped, a redirect into a disallowed path stops at the hop, the page's disallowed subresources never leave", async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const audit = new AttemptRows();
    const skipped: RobotsSkip[] = [];
    const handled: string[] = [];
    const crawler = make({
      maxConcurrency: 2,
      maxRequestRetries: 2,
      requestHandler: async ({ request }: { request: { url: string } }) => void handled.push(request.url),
      onSkippedRequest: async (s: RobotsSkip) => void skipped.push(s),
    });
    gateCrawler(crawler, gate, { minIntervalMs: 0, audit });
    const marker = `/private/${name}.html`;
    const before = o.allowing.requests(H).length;
    const [dBefore, uBefore, pBefore] = [o.disallowing.requests(H).length, o.unreachable.requests(H).length, o.page.requests(H, '/go-private').length];
    await crawler.run([o.url(o.page, '/'), o.url(o.allowing, marker), o.url(o.page, '/go-private')]);

    expect(handled).toEqual([o.url(o.page, '/')]);
    const sent = o.allowing.requests(H).slice(before).map((r) => r.path);
    expect(sent.filter((p) => p.startsWith('/private/'))).toEqual([]);
    // The page's subresources on the disallowing and the 503 origins never left the browser.
    expect(o.disallowing.requests(H).slice(dBefore).map((r) => r.path)).toEqual(['/robots.txt']);
    expect(o.unreachable.requests(H).slice(uBefore).map((r) => r.path)).toEqual(['/robots.txt']);

    const byUrl = new Map(skipped.map((s) => [s.url, s]));
    expect(byUrl.get(o.url(o.allowing, marker))).toMatchObject({ reason: 'robotsTxt', decision: { reason: 'disallowed-by-rule', rule: { line: 2 } } });
    // The redirect was sent once (no retries) and its hop refused by the page's gate.
    expect(byUrl.get(o.url(o.page, '/go-private'))).toMatchObject({ reason: 'robotsTxt', decision: { url: o.url(o.allowing, '/private/secret.html') } });
    expect(o.page.requests(H, '/go-private').length - pBefore).toBe(1);

    const rows = audit.rows;
    expect(rows.filter((r) => r.kind === 'subresource' && r.outcome === 'blocked').length).toBeGreaterThanOrEqual(8);
    // The allowed origin's four subresources were attempts too.
    const fetched = rows.filter((r) => r.kind === 'subresource' && r.outcome === 'fetched' && r.host === `${H}:${o.allowing.port}`);
    expect(fetched.map((r) => new URL(r.url).pathname).sort()).toEqual(['/api/data.json', '/assets/app.js', '/assets/logo.png', '/assets/site.css']);
    expect(rows.find((r) => r.url === o.url(o.page, '/') && r.kind === 'page')).toMatchObject({ outcome: 'fetched', status: 200 });
    expect(rows.find((r) => r.url === o.url(o.allowing, marker))).toMatchObject({ outcome: 'blocked', ruleLine: 2 });
    for (const r of o.allowing.requests(H).slice(before)) expect(r.userAgent).toBe(UA);
    await gate.close();
  });
});
