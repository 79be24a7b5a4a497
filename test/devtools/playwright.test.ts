// Playwright's connectOverCDP on the endpoint: the http URL with its token is all it needs. Its
// pages are gated (subresources, navigations, a popup, a dedicated worker's fetch), its own
// routing and request events keep working, and a CDPSession of its page gets Robots events.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadPlaywright } from '../../src/browser/index.js';
import { CDN, WWW } from './site.js';
import { sleep, startHarness, type Harness } from './harness.js';

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  h = await startHarness();
  const { chromium } = await loadPlaywright();
  browser = await chromium.connectOverCDP(h.endpoint.httpUrl);
});
afterAll(async () => {
  await browser?.close().catch(() => {});
  await h?.close();
});

test('pages of a connectOverCDP browser are gated; requestfailed says ERR_BLOCKED_BY_CLIENT; Robots events on a CDPSession', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  const events: Array<Record<string, any>> = [];
  (session as unknown as { on(e: string, f: (p: Record<string, any>) => void): void }).on('Robots.requestBlocked', (p) => events.push(p));
  await (session as unknown as { send(m: string): Promise<unknown> }).send('Robots.enable');
  const failed: Array<[string, string | undefined]> = [];
  page.on('requestfailed', (r) => failed.push([r.url(), r.failure()?.errorText]));

  await page.goto(h.site.url(WWW, '/'));
  expect(await page.evaluate(() => (window as unknown as { fetched: Promise<unknown> }).fetched)).toBe('failed');
  expect(await page.evaluate(() => (window as unknown as { ran: string[] }).ran)).toEqual(['/public/app.js']);
  await sleep(200);
  expect(h.site.paths(CDN).filter((p) => p.startsWith('/private/'))).toEqual([]);
  expect(failed.map(([u]) => new URL(u).pathname).sort()).toEqual(['/private/data.json', '/private/pixel.png', '/private/track.js']);
  // Chromium's text for a request failed over DevTools as blocked by client.
  for (const [, text] of failed) expect(text).toMatch(/^net::ERR_BLOCKED_BY_CLIENT/);
  expect(events.map((e) => new URL(e.url).pathname).sort()).toEqual(['/private/data.json', '/private/pixel.png', '/private/track.js']);
  for (const e of events) expect(e.rule).toEqual({ type: 'disallow', pattern: '/private/', line: 3 });

  await expect(page.goto(h.site.url(WWW, '/admin'))).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
  await context.close();
});

test("Playwright's own routing and popups: a route fulfils before the gate, a popup's first URL is gated", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.route('**/routed.html', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: `<img src="${h.site.url(CDN, '/private/routed.png')}"><img src="${h.site.url(CDN, '/public/routed.png')}">` }),
  );
  await page.goto(h.site.url(WWW, '/routed.html'));
  await page.waitForLoadState('load');
  await sleep(200);
  expect(h.site.paths(WWW)).not.toContain('/routed.html'); // fulfilled by the route: never left
  expect(h.site.paths(CDN)).toContain('/public/routed.png');
  expect(h.site.paths(CDN)).not.toContain('/private/routed.png');

  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    page.evaluate((u) => void window.open(u), h.site.url(CDN, '/private/popup-pw.html')),
  ]);
  await popup.waitForLoadState().catch(() => {});
  await sleep(200);
  expect(h.site.paths(CDN)).not.toContain('/private/popup-pw.html');
  expect(h.decided.some((d) => d.url.endsWith('/private/popup-pw.html') && d.decision?.allowed === false)).toBe(true);
  await context.close();
});

test("a dedicated worker's fetch() is gated as the page's", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(h.site.url(WWW, '/worker-host.html'));
  const results = await page.evaluate(async (urls) => {
    const src = `onmessage = async (e) => { const out = []; for (const u of e.data) out.push(await fetch(u).then(r => r.status, () => 'failed')); postMessage(out); }`;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    return new Promise((resolve) => {
      w.onmessage = (e) => resolve(e.data);
      w.postMessage(urls);
    });
  }, [h.site.url(CDN, '/private/worker.json'), h.site.url(CDN, '/public/worker.json')]);
  expect(results).toEqual(['failed', 200]);
  expect(h.site.paths(CDN)).not.toContain('/private/worker.json');
  await context.close();
});
