// A target created with its URL (Target.createTarget { url }, /json/new?URL, in a new browser
// context, as a new window or in the background, a popup) is gated from its first request: the
// disallowed path never reaches the server and Robots.requestBlocked says so. Chromium starts a
// created target's first navigation before any auto-attached session can hold it, so the gate
// must not leave that navigation to the browser.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CDN, WWW } from './site.js';
import { connect, sleep, startHarness, type Harness, type Raw } from './harness.js';

let h: Harness;
let c: Raw;
beforeAll(async () => {
  h = await startHarness();
  c = await connect(h.endpoint.webSocketDebuggerUrl);
  // The browser-level session gets every target's Robots.requestBlocked.
  await c.send('Robots.enable');
});
afterAll(async () => {
  await c?.close();
  await h?.close();
});

/** Waits for the blocked event of `path`, then checks the server never saw it. */
async function expectBlocked(path: string, targetId?: string): Promise<void> {
  const ev = await c.waitFor('Robots.requestBlocked', (p) => p.url === h.site.url(CDN, path));
  expect(ev).toMatchObject({ isNavigation: true, type: 'Document', reason: 'disallowed-by-rule', rule: { pattern: '/private/', line: 3 } });
  if (targetId) expect(ev.targetId).toBe(targetId);
  await sleep(200);
  expect(h.site.paths(CDN)).not.toContain(path);
  expect(h.site.paths(CDN)).toContain('/robots.txt');
}

describe('a target created with a URL is gated from its first request', () => {
  test('Target.createTarget { url }', async () => {
    const { targetId } = await c.send('Target.createTarget', { url: h.site.url(CDN, '/private/ct') });
    await expectBlocked('/private/ct', targetId);
  });

  test('newWindow and background variants', async () => {
    const w = await c.send('Target.createTarget', { url: h.site.url(CDN, '/private/window'), newWindow: true });
    await expectBlocked('/private/window', w.targetId);
    const b = await c.send('Target.createTarget', { url: h.site.url(CDN, '/private/background'), background: true });
    await expectBlocked('/private/background', b.targetId);
  });

  test('in a new browser context', async () => {
    const { browserContextId } = await c.send('Target.createBrowserContext', {});
    const { targetId } = await c.send('Target.createTarget', { url: h.site.url(CDN, '/private/context'), browserContextId });
    await expectBlocked('/private/context', targetId);
    await c.send('Target.disposeBrowserContext', { browserContextId });
  });

  test('/json/new?URL', async () => {
    const made = await fetch(`${h.endpoint.httpUrl}/json/new?${h.site.url(CDN, '/private/zz')}`).then((r) => r.json());
    expect(made.webSocketDebuggerUrl).toContain(`/devtools/page/${made.id}`);
    expect(made.url).toBe(h.site.url(CDN, '/private/zz'));
    await expectBlocked('/private/zz', made.id);
  });

  test('an allowed URL still loads, and a popup it opens (window.open) is gated', async () => {
    const { targetId } = await c.send('Target.createTarget', { url: h.site.url(WWW, '/opener') });
    for (let i = 0; i < 100 && !h.site.paths(WWW).includes('/opener'); i++) await sleep(50);
    expect(h.site.paths(WWW)).toContain('/opener');
    const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
    await c.send('Runtime.evaluate', { expression: `window.open(${JSON.stringify(h.site.url(CDN, '/private/popup'))}); 1`, userGesture: true }, sessionId);
    await expectBlocked('/private/popup');
  });
});
