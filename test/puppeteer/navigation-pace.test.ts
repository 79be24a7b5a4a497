// Navigations through robots-gate/puppeteer keep each host's interval, measured at the servers
// (see test/browser/navigation-pace.test.ts for the Playwright door).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '../../src/browser/index.js';
import { RobotsGate } from '../../src/gate/index.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import { gateBrowser } from '../../src/puppeteer/index.js';
import { BARE_BACKOFF_MS, downloaded, expectBareBackoff, expectOneInterval, gap, INTERVAL_MS, SLACK_MS, startPacedHosts, type PacedHosts } from '../browser/pace-fixture.js';

const UA = 'PaceTestBot/1.0 (+https://example.test/bot)';
const paceGate = () => new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });

let browser: Browser;
let h: PacedHosts;
beforeAll(async () => {
  browser = await puppeteer.launch({ executablePath: DEFAULT_CHROMIUM, args: [...CHROMIUM_ARGS], headless: true });
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  h = await startPacedHosts();
});
afterEach(async () => {
  await h.close();
});

test('two navigations to one host keep its Crawl-delay; the first waits its interval after robots.txt; a redirect hop keeps its own host\'s', async () => {
  const gate = paceGate();
  const context = await browser.createBrowserContext();
  const handle = await gateBrowser(browser, gate);
  try {
    const page = await context.newPage();
    await page.goto(h.url(h.a, '/one'));
    await page.goto(h.url(h.a, '/go'));
    expect(page.url()).toBe(h.url(h.b, '/landing'));
    expect(gap(h.hits(h.a, '/robots.txt')[0], h.hits(h.a, '/one')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
    expect(gap(h.hits(h.a, '/one')[0], h.hits(h.a, '/go')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
    expect(gap(h.hits(h.b, '/robots.txt')[0], h.hits(h.b, '/landing')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
    // Subresources are gated and counted, not spaced.
    expect(gap(h.hits(h.a, '/one')[0], h.hits(h.a, '/s.css')[0])).toBeLessThan(INTERVAL_MS);
  } finally {
    await handle.dispose();
    await context.close();
    await gate.close();
  }
});

test("a 503 navigation without Retry-After backs its host off for the gate's defaultBackoffMs", async () => {
  const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter(), defaultBackoffMs: BARE_BACKOFF_MS });
  const context = await browser.createBrowserContext();
  const handle = await gateBrowser(browser, gate);
  try {
    const page = await context.newPage();
    expect((await page.goto(h.url(h.a, '/busy-bare')))?.status()).toBe(503);
    await page.goto(h.url(h.a, '/two'));
    expectBareBackoff(h);
  } finally {
    await handle.dispose();
    await context.close();
    await gate.close();
  }
});

test('a page closed while its navigation waits for the host\'s slot: nothing is sent and the next page has its turn', async () => {
  const gate = paceGate();
  const context = await browser.createBrowserContext();
  const handle = await gateBrowser(browser, gate);
  try {
    // Both pages first: the second's navigation must be waiting when it is closed, within a/'s interval.
    const first = await context.newPage();
    const closing = await context.newPage();
    // The next page ready too: opening one after the close took 700 ms on a loaded machine.
    const next = await context.newPage();
    await first.goto(h.url(h.a, '/one'));
    // Its renderer busy past the slot's opening, as a loaded machine's may be: Chromium ends the
    // target only once it answers, and a wait that ended at the close event let /two go. Busy
    // until well before a second interval, so that a turn spent shows as one.
    await closing.evaluate('setTimeout(() => { const t = Date.now(); while (Date.now() - t < 1200); }, 100)');
    const waiting = closing.goto(h.url(h.a, '/two')).catch(() => null);
    await new Promise((r) => setTimeout(r, 600));
    await closing.close();
    await waiting;
    const askedAt = performance.timeOrigin + performance.now();
    await next.goto(h.url(h.a, '/three'));
    expect(h.hits(h.a, '/two')).toEqual([]);
    const g = gap(h.hits(h.a, '/one')[0], h.hits(h.a, '/three')[0]);
    expect(g).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
    // The closed page's turn was given up, not taken and spent: that would put /three a second
    // interval after /one. A loaded machine may end the close late; the next page goes soon after
    // it asks.
    const askedAfter = askedAt - h.hits(h.a, '/one')[0].endedAt!;
    expect(g).toBeLessThan(Math.max(INTERVAL_MS, askedAfter) + 0.6 * INTERVAL_MS);
  } finally {
    await handle.dispose();
    await context.close();
    await gate.close();
  }
});

test('a navigation that becomes a download holds its host until the download has ended', async () => {
  const gate = paceGate();
  // A new context refuses downloads unless told otherwise (the attachment is then cut off at once).
  const saveTo = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-download-'));
  const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'allow', downloadPath: saveTo } });
  const handle = await gateBrowser(browser, gate);
  try {
    const page = await context.newPage();
    // Puppeteer answers net::ERR_ABORTED; the attachment goes on for DOWNLOAD_MS.
    await page.goto(h.url(h.a, '/download')).catch(() => null);
    await page.goto(h.url(h.a, '/two'));
    expectOneInterval(gap(await downloaded(h), h.hits(h.a, '/two')[0]));
  } finally {
    await handle.dispose();
    await context.close();
    await gate.close();
    fs.rmSync(saveTo, { recursive: true, force: true });
  }
});
