// Navigations through `robots-gate browser`'s endpoint keep each host's interval, measured at the
// servers, for a client that knows only the DevTools protocol (chrome-remote-interface here); a
// target closed while its navigation waits for the slot sends nothing and gives up its turn.
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { DevToolsEndpoint } from '../../src/devtools/endpoint.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import { downloaded, expectOneInterval, gap, INTERVAL_MS, SLACK_MS, startPacedHosts, type PacedHosts } from '../browser/pace-fixture.js';
import { connect, sleep, type Raw } from './harness.js';

const UA = 'PaceTestBot/1.0 (+https://example.test/bot)';

let gate: RobotsGate;
let endpoint: DevToolsEndpoint;
let c: Raw;
let h: PacedHosts;
beforeAll(async () => {
  gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });
  endpoint = await DevToolsEndpoint.start({ gate, port: 0 });
  c = await connect(endpoint.webSocketDebuggerUrl);
});
afterAll(async () => {
  await c?.close();
  await endpoint?.close();
  await gate?.close();
});
beforeEach(async () => {
  h = await startPacedHosts();
});
afterEach(async () => {
  await h.close();
});

async function page(): Promise<{ targetId: string; sessionId: string }> {
  const { targetId } = await c.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
  await c.send('Page.enable', {}, sessionId);
  return { targetId, sessionId };
}

/** Navigates and resolves once the page's load event fired. */
async function visit(sessionId: string, url: string): Promise<void> {
  const since = c.events.length;
  await c.send('Page.navigate', { url }, sessionId);
  await c.waitFor('Page.loadEventFired', () => c.events.slice(since).some((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId));
}

test('two navigations to one host keep its Crawl-delay; the first waits its interval after robots.txt; a redirect hop keeps its own host\'s', async () => {
  const { sessionId, targetId } = await page();
  await visit(sessionId, h.url(h.a, '/one'));
  await visit(sessionId, h.url(h.a, '/go'));
  expect(gap(h.hits(h.a, '/robots.txt')[0], h.hits(h.a, '/one')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  expect(gap(h.hits(h.a, '/one')[0], h.hits(h.a, '/go')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  expect(gap(h.hits(h.b, '/robots.txt')[0], h.hits(h.b, '/landing')[0])).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  expect(gap(h.hits(h.a, '/one')[0], h.hits(h.a, '/s.css')[0])).toBeLessThan(INTERVAL_MS);
  await c.send('Target.closeTarget', { targetId });
});

// The closing page's renderer is kept busy past the slot's opening, as a loaded machine's may be:
// Chromium then detaches the target only once the renderer answers, or after its hang timeout, and
// a wait that ended at the detach let /two go to a closing page. It ends at the close command.
test.each([
  [200, 'Target.closeTarget'],
  [INTERVAL_MS - 400, 'Target.closeTarget'],
  [INTERVAL_MS - 400, '/json/close'],
  [INTERVAL_MS - 400, 'Page.close'],
] as const)('a target closed %i ms into its navigation\'s wait for the host\'s slot (%s): nothing is sent and the next page has its turn', async (closeAfterMs, how) => {
  // Both pages first: the second's navigation must be waiting when it is closed, within a/'s interval.
  const first = await page();
  const closing = await page();
  // The next page ready too: opening one after the close took 700 ms on a loaded machine.
  const next = await page();
  // From the end of /one's response at the server, not from its load event (its subresources may
  // take long on a loaded machine): the close must come well inside a/'s interval.
  const loaded = visit(first.sessionId, h.url(h.a, '/one'));
  // A renderer busy past the slot's opening: Chromium closes its target only once it answers.
  await c.send('Runtime.evaluate', { expression: 'setTimeout(() => { const t = Date.now(); while (Date.now() - t < 2000); }, 100)' }, closing.sessionId);
  while (h.hits(h.a, '/one')[0]?.endedAt === undefined) await sleep(5);
  // Page.navigate answers once the navigation has its response: not awaited.
  const navigating = c.send('Page.navigate', { url: h.url(h.a, '/two') }, closing.sessionId).catch(() => null);
  await sleep(closeAfterMs - (performance.timeOrigin + performance.now() - h.hits(h.a, '/one')[0]!.endedAt!));
  if (how === '/json/close') expect((await fetch(`${endpoint.httpUrl}/json/close/${closing.targetId}`)).status).toBe(200);
  // Answered once the page has run its beforeunload, which its busy renderer holds off: not awaited.
  else if (how === 'Page.close') void c.send('Page.close', {}, closing.sessionId).catch(() => null);
  else await c.send('Target.closeTarget', { targetId: closing.targetId });
  const closedAt = performance.timeOrigin + performance.now();
  await navigating;
  await loaded;
  // Otherwise the slot had opened before the close and /two may rightly have gone: not this case.
  expect(closedAt - h.hits(h.a, '/one')[0]!.endedAt!, 'the close came inside the interval').toBeLessThan(INTERVAL_MS);
  const askedAt = performance.timeOrigin + performance.now();
  await visit(next.sessionId, h.url(h.a, '/three'));
  expect(h.hits(h.a, '/two')).toEqual([]);
  const g = gap(h.hits(h.a, '/one')[0], h.hits(h.a, '/three')[0]);
  expect(g).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  // The closed target's turn given up, not spent: that would put /three a second interval after /one.
  const askedAfter = askedAt - h.hits(h.a, '/one')[0]!.endedAt!;
  expect(g).toBeLessThan(Math.max(INTERVAL_MS, askedAfter) + 0.6 * INTERVAL_MS);
  for (const t of [first, next]) await c.send('Target.closeTarget', { targetId: t.targetId });
});

// The client has no Network domain on (only Page): Fetch names the page's navigation by an id of
// its own, and the slot must still end at the page's DOMContentLoaded, not when the frame stops
// loading (which waits for the iframe, which waits for the slot: the host stalled 60 s).
test('a page with a same-host iframe: the iframe waits its interval after the page, and the host is not held until the page stops loading', async () => {
  const { sessionId, targetId } = await page();
  await visit(sessionId, h.url(h.a, '/framed'));
  const inner = h.hits(h.a, '/inner');
  expect(inner).toHaveLength(1);
  const g = gap(h.hits(h.a, '/framed')[0], inner[0]);
  expect(g).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  expect(g).toBeLessThan(10 * INTERVAL_MS);
  await c.send('Target.closeTarget', { targetId });
});

test('a navigation that becomes a download holds its host until the download has ended', async () => {
  const { sessionId, targetId } = await page();
  // Page.navigate answers once the navigation has turned into a download (net::ERR_ABORTED).
  await c.send('Page.navigate', { url: h.url(h.a, '/download') }, sessionId);
  await visit(sessionId, h.url(h.a, '/two'));
  expectOneInterval(gap(await downloaded(h), h.hits(h.a, '/two')[0]));
  await c.send('Target.closeTarget', { targetId });
});
