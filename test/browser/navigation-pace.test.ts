// Navigations through robots-gate/browser keep each host's interval, measured at the servers: the
// gap between the end of one document's response and the arrival of the next navigation to that
// host, the robots.txt request counted, each redirect hop against its own host. Both of
// gatePage's paths: Playwright in this process (page sessions decide documents) and connected to
// a server elsewhere (documents decided at the browser level).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { RobotsGate } from '../../src/gate/index.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import { launchChromium, newGatedContext, whenGuarded, type GatedRequest, type GateHandle } from '../../src/browser/index.js';
import { connectChromium } from './fixtures.js';
import { BARE_BACKOFF_MS, downloaded, expectBareBackoff, expectOneInterval, gap, INTERVAL_MS, RETRY_AFTER_MS, SLACK_MS, startPacedHosts, STREAM_MS, type PacedHosts } from './pace-fixture.js';

const UA = 'PaceTestBot/1.0 (+https://example.test/bot)';

const modes = [
  ['Playwright in this process', async () => {
    const browser = await launchChromium();
    return { browser, close: () => browser.close() };
  }],
  ['Playwright connected to a server elsewhere', connectChromium],
] as const;

/** The navigations `handle` let through, as they are emitted. */
function allowedNavigations(handle: GateHandle): GatedRequest[] {
  const seen: GatedRequest[] = [];
  handle.on('allowed', (e) => void (e.isNavigation && seen.push(e)));
  return seen;
}

/** A gate whose interval is the hosts' Crawl-delay alone (no floor, no jitter), on a limiter of its own. */
const paceGate = () => new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });

describe.each(modes)('%s', (_mode, open) => {
  let browser: Browser;
  let close: () => Promise<void>;
  let h: PacedHosts;
  beforeAll(async () => {
    ({ browser, close } = await open());
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    h = await startPacedHosts();
  });
  afterEach(async () => {
    await h.close();
  });

  test('two navigations to one host keep its Crawl-delay; the first waits its interval after the robots.txt request', async () => {
    const gate = paceGate();
    const { context, handle } = await newGatedContext(browser, gate);
    const navigations = allowedNavigations(handle);
    try {
      const page = await context.newPage();
      await whenGuarded(page);
      await page.goto(h.url(h.a, '/one'));
      await page.goto(h.url(h.a, '/two'));
      const [robots] = h.hits(h.a, '/robots.txt');
      const [one] = h.hits(h.a, '/one');
      const [two] = h.hits(h.a, '/two');
      expect(gap(robots, one)).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
      expect(gap(one, two)).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
      // Each entry says when it was let go (after its wait, the interval after the host's previous
      // response) and the interval it waited for; `at` stays the decision's.
      const entries = navigations.map((e) => [new URL(e.url).pathname, e.wait && { reason: e.wait.reason, intervalMs: e.wait.intervalMs }]);
      expect(entries).toEqual([['/one', { reason: 'crawl-delay', intervalMs: INTERVAL_MS }], ['/two', { reason: 'crawl-delay', intervalMs: INTERVAL_MS }]]);
      for (const [e, previous] of [[navigations[0]!, robots], [navigations[1]!, one]] as const) {
        expect(Date.parse(e.sentAt!)).toBeGreaterThanOrEqual(previous!.endedAt! + INTERVAL_MS - SLACK_MS);
        expect(Date.parse(e.sentAt!)).toBeGreaterThan(Date.parse(e.at));
      }
      // Subresources are gated and counted, not spaced: the page's stylesheet came at once.
      expect(gap(one, h.hits(h.a, '/s.css')[0])).toBeLessThan(INTERVAL_MS);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a page that navigates itself while its HTML still arrives: the new request waits for that response to end, then the interval', async () => {
    const gate = paceGate();
    const { context, handle } = await newGatedContext(browser, gate);
    try {
      const page = await context.newPage();
      await whenGuarded(page);
      // Its load is cut short by its own navigation.
      await page.goto(h.url(h.a, '/streaming'), { waitUntil: 'commit' });
      await page.waitForURL(h.url(h.a, '/after'), { timeout: 15_000 });
      const [streaming] = h.hits(h.a, '/streaming');
      const [after] = h.hits(h.a, '/after');
      // The response had ended (the server wrote its last byte) before the next request came.
      expect(streaming?.endedAt).toBeGreaterThanOrEqual(streaming!.startedAt + STREAM_MS - SLACK_MS);
      expect(gap(streaming, after)).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
      expect(handle.blocked).toEqual([]);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a redirect into another host: each hop keeps its own host\'s interval', async () => {
    const gate = paceGate();
    const { context } = await newGatedContext(browser, gate);
    try {
      const page = await context.newPage();
      await whenGuarded(page);
      await page.goto(h.url(h.a, '/go'));
      expect(page.url()).toBe(h.url(h.b, '/landing'));
      await page.goto(h.url(h.a, '/after'));
      // The hop into b waited b's interval after b's robots.txt request (fetched for its decision).
      expect(gap(h.hits(h.b, '/robots.txt')[0], h.hits(h.b, '/landing')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
      // The redirect response counts against a.
      expect(gap(h.hits(h.a, '/go')[0], h.hits(h.a, '/after')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a 503 navigation holds its host for its Retry-After; a 204 one (no document) gives its slot back at its response', async () => {
    const gate = paceGate();
    const { context, handle } = await newGatedContext(browser, gate);
    const navigations = allowedNavigations(handle);
    try {
      const page = await context.newPage();
      await whenGuarded(page);
      expect((await page.goto(h.url(h.a, '/busy')))?.status()).toBe(503);
      await page.goto(h.url(h.a, '/empty')).catch(() => null); // Chromium aborts a 204 navigation
      await page.goto(h.url(h.a, '/two'));
      expect(gap(h.hits(h.a, '/busy')[0], h.hits(h.a, '/empty')[0])).toBeGreaterThanOrEqual(RETRY_AFTER_MS - SLACK_MS);
      // The wait after the 503 was its back-off's.
      expect(navigations.map((e) => [new URL(e.url).pathname, e.wait?.reason])).toEqual([['/busy', 'crawl-delay'], ['/empty', 'backoff'], ['/two', 'crawl-delay']]);
      const g = gap(h.hits(h.a, '/empty')[0], h.hits(h.a, '/two')[0]);
      expect(g).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
      // Not held until the 60 s backstop, nor until a later event.
      expect(g).toBeLessThan(1.8 * INTERVAL_MS);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test("a 503 navigation without Retry-After backs its host off for the gate's defaultBackoffMs", async () => {
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter(), defaultBackoffMs: BARE_BACKOFF_MS });
    const { context } = await newGatedContext(browser, gate);
    try {
      const page = await context.newPage();
      await whenGuarded(page);
      expect((await page.goto(h.url(h.a, '/busy-bare')))?.status()).toBe(503);
      await page.goto(h.url(h.a, '/two'));
      expectBareBackoff(h);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a navigation that becomes a download holds its host until the download has ended, not until it began', async () => {
    const gate = paceGate();
    const { context } = await newGatedContext(browser, gate);
    try {
      const page = await context.newPage();
      await whenGuarded(page);
      // Playwright answers "Download is starting"; the attachment goes on for DOWNLOAD_MS.
      await page.goto(h.url(h.a, '/download')).catch(() => null);
      await page.goto(h.url(h.a, '/two'));
      const download = await downloaded(h);
      expectOneInterval(gap(download, h.hits(h.a, '/two')[0]));
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a page closed while its navigation waits for the host\'s slot: nothing is sent and the next page has its turn', async () => {
    const gate = paceGate();
    const { context } = await newGatedContext(browser, gate);
    try {
      // Both pages first: the second's navigation must be waiting when it is closed, within a/'s interval.
      const first = await context.newPage();
      const closing = await context.newPage();
      // The next page ready too: opening one after the close took 700 ms on a loaded machine.
      const next = await context.newPage();
      await Promise.all([whenGuarded(first), whenGuarded(closing), whenGuarded(next)]);
      await first.goto(h.url(h.a, '/one'));
      // Its renderer busy past the slot's opening, as a loaded machine's may be: Chromium ends the
      // target only once it answers, and a wait that ended at the close event let /two go. Busy
      // until well before a second interval, so that a turn spent shows as one.
      await closing.evaluate('setTimeout(() => { const t = Date.now(); while (Date.now() - t < 1200); }, 100)');
      const waiting = closing.goto(h.url(h.a, '/two')).catch(() => null);
      // Closed half an interval after /one's response ended, whatever the load made of the steps
      // before: a fixed 600 ms from here closed it after the slot had opened when the whole suite ran.
      const oneEnded = h.hits(h.a, '/one')[0]!.endedAt!;
      await new Promise((r) => setTimeout(r, Math.max(0, oneEnded + INTERVAL_MS / 2 - (performance.timeOrigin + performance.now()))));
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
      await context.close();
      await gate.close();
    }
  });
});
