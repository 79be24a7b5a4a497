// robots-gate/puppeteer against real loopback servers and Debian's Chromium driven by
// puppeteer-core: the servers' own logs show what left the browser.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { RobotsGate } from '../../src/gate/index.js';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '../../src/browser/index.js';
import { gateBrowser, gatePage, type PuppeteerGatedRequest } from '../../src/puppeteer/index.js';
import { startOrigins, type Origins } from '../browser/fixtures.js';
import { startVirtualHosts } from '../helpers/hosts.js';
import { startAll } from '../helpers/start-all.js';

const UA = 'GateTestBot/1.0 (+https://example.test/bot)';
const H = '127.0.0.1';

export function launchPuppeteer(): Promise<Browser> {
  return puppeteer.launch({ executablePath: DEFAULT_CHROMIUM, args: [...CHROMIUM_ARGS], headless: true });
}

let browser: Browser;
let o: Origins;
beforeAll(async () => {
  await startAll([launchPuppeteer().then((b) => (browser = b)), startOrigins().then((x) => (o = x))]);
});
afterAll(async () => {
  await browser?.close();
  await o?.close();
});

const paths = (s: Origins['page'], path?: string) => s.requests(H, path).map((r) => r.path);
const blockedAt = (handle: { on(e: 'blocked', fn: (b: PuppeteerGatedRequest) => void): unknown }, url: string) =>
  new Promise<PuppeteerGatedRequest>((resolve) => handle.on('blocked', (b) => b.url === url && resolve(b)));

describe('gatePage (puppeteer-core)', () => {
  test('subresources from a disallowing, an unreachable (503) and an allowing origin: only the allowed reach a server', async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const handle = await gatePage(page, gate);
      const emitted: PuppeteerGatedRequest[] = [];
      handle.on('blocked', (e) => emitted.push(e));
      await page.goto(o.url(o.page, '/'));
      const statuses = await page.evaluate(() => Promise.all((window as unknown as { fetches: Promise<unknown>[] }).fetches));
      const loaded = await page.evaluate(() => (window as unknown as { loaded?: string[] }).loaded);
      expect(statuses).toEqual(['failed', 'failed', 200]);
      expect(loaded).toEqual(['/assets/app.js']);

      expect(paths(o.disallowing)).toEqual(['/robots.txt']);
      expect(paths(o.unreachable)).toEqual(['/robots.txt']);
      expect(paths(o.allowing, '/robots.txt')).toHaveLength(1);
      expect(paths(o.allowing).filter((p) => p !== '/robots.txt').sort()).toEqual(['/api/data.json', '/assets/app.js', '/assets/logo.png', '/assets/site.css']);
      for (const s of [o.page, o.allowing]) for (const r of s.requests(H)) expect(r.userAgent).toBe(UA);

      expect(handle.blocked).toHaveLength(8);
      expect(emitted).toHaveLength(8);
      const byOrigin = (port: number) => handle.blocked.filter((b) => new URL(b.url).port === String(port));
      for (const b of byOrigin(o.disallowing.port)) {
        expect(b.decision?.reason).toBe('disallowed-by-rule');
        expect(b.decision?.rule?.line).toBe(b.url.includes('/api/') ? 3 : 2);
        expect(b.frameUrl).toBe(o.url(o.page, '/'));
        expect(b.page === page).toBe(true);
      }
      expect(byOrigin(o.disallowing.port).map((b) => b.resourceType).sort()).toEqual(['fetch', 'image', 'script', 'stylesheet']);
      for (const b of byOrigin(o.unreachable.port)) expect(b.decision).toMatchObject({ reason: 'unreachable', policy: { status: 503 } });
      // Puppeteer's own requestfailed names the blocked ones as DevTools failed them.
      expect(byOrigin(o.disallowing.port).filter((b) => /^net::ERR_BLOCKED_BY_CLIENT/.test(b.request?.failure()?.errorText ?? ''))).not.toHaveLength(0);

      await handle.dispose();
      const after = await page.evaluate((u) => fetch(u).then((r) => r.status), o.url(o.disallowing, '/api/data.json'));
      expect(after).toBe(200);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a navigation redirected from an allowed to a disallowed URL stops at the hop', async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const handle = await gatePage(page, gate);
      const allowed: PuppeteerGatedRequest[] = [];
      handle.on('allowed', (a) => allowed.push(a));
      await expect(page.goto(o.url(o.page, '/go-private'))).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
      const hop = handle.blocked.find((b) => b.url === o.url(o.allowing, '/private/secret.html'));
      expect(hop).toMatchObject({ isNavigation: true, redirectedFrom: o.url(o.page, '/go-private') });
      expect(hop?.decision?.rule).toMatchObject({ type: 'disallow', pattern: '/private/', line: 2 });
      expect(paths(o.allowing, '/private/secret.html')).toEqual([]);
      expect(allowed.map((a) => a.url)).toContain(o.url(o.page, '/go-private'));

      await page.goto(o.url(o.page, '/go-public'));
      expect(await page.$eval('p', (p) => p.textContent)).toBe('/public/index.html');
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test("a subresource's redirect hop, frames and a dedicated worker are gated like the page", async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const handle = await gatePage(page, gate);
      await page.goto(o.url(o.page, '/with-redirects'));
      expect(await page.evaluate(() => (window as unknown as { done: Promise<unknown> }).done)).toBe(200);
      const hop = handle.blocked.find((b) => b.url === o.url(o.disallowing, '/assets/moved.png'));
      expect(hop?.redirectedFrom).toMatch(/\/redirect\?to=/);
      expect(paths(o.disallowing, '/assets/moved.png')).toEqual([]);
      expect(paths(o.allowing, '/api/moved.json')).toHaveLength(1);

      await page.goto(o.url(o.page, '/with-frames'));
      expect(await page.evaluate(() => (window as unknown as { worker: Promise<unknown> }).worker)).toBe('failed');
      const frame = handle.blocked.find((b) => b.url === o.url(o.disallowing, '/assets/frame.html'));
      expect(frame).toMatchObject({ isNavigation: true, resourceType: 'document' });
      expect(handle.blocked.filter((b) => b.url === o.url(o.disallowing, '/api/worker.json'))).toHaveLength(1);
      expect(paths(o.disallowing, '/assets/frame.html')).toEqual([]);
      expect(paths(o.disallowing, '/api/worker.json')).toEqual([]);
      expect(paths(o.allowing, '/public/frame.html')).toHaveLength(1);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test("the page's popups and its shared workers are gated from their creation", async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const handle = await gatePage(page, gate);
      await page.goto(o.url(o.page, '/'));
      const popup = o.url(o.disallowing, '/assets/puppeteer-popup.html');
      const blocked = blockedAt(handle, popup);
      await page.evaluate((u) => void window.open(u), popup);
      expect((await blocked).isNavigation).toBe(true);
      expect(paths(o.disallowing, '/assets/puppeteer-popup.html')).toEqual([]);

      const shared = o.url(o.disallowing, '/api/shared.json');
      const fromWorker = blockedAt(handle, shared);
      await page.evaluate((u) => void new SharedWorker(u), o.url(o.page, '/shared-worker.js'));
      expect((await fromWorker).decision?.reason).toBe('disallowed-by-rule');
      expect(paths(o.disallowing, '/api/shared.json')).toEqual([]);
    } finally {
      await context.close();
      await gate.close();
    }
  });

  test('a service worker the page registers is gated from its start: its disallowed fetch never leaves', async () => {
    const target = o.url(o.disallowing, '/api/from-service-worker.json');
    const site = await startVirtualHosts({
      [H]: (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        if (req.url === '/sw.js') {
          const body = `self.addEventListener('install', (e) => e.waitUntil(fetch(${JSON.stringify(target)}).catch(() => {})));`;
          return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
        }
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          "<!doctype html><script>navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => { document.title = 'ready' })</script>",
        );
      },
    });
    const gate = new RobotsGate({ userAgent: UA });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const handle = await gatePage(page, gate);
      const blocked = blockedAt(handle, target);
      await page.goto(`${site.origin(H)}/`);
      await page.waitForFunction(() => document.title === 'ready');
      expect((await blocked).decision?.reason).toBe('disallowed-by-rule');
      expect(paths(o.disallowing, '/api/from-service-worker.json')).toEqual([]);
      // The worker's script itself was decided too (and allowed).
      expect(site.requests(H, '/sw.js')).toHaveLength(1);
    } finally {
      await context.close();
      await gate.close();
      await site.close();
    }
  });
});

describe('gateBrowser (puppeteer-core)', () => {
  test('pages opened after it in any context are gated before their first request', async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const own = await launchPuppeteer();
    try {
      const handle = await gateBrowser(own, gate);
      const context = await own.createBrowserContext();
      const page = await context.newPage();
      await expect(page.goto(o.url(o.allowing, '/private/gate-browser.html'))).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
      expect(handle.blocked.map((b) => b.url)).toContain(o.url(o.allowing, '/private/gate-browser.html'));
      expect(handle.blocked.at(-1)?.page === page).toBe(true);
      const next = await own.newPage();
      await next.goto(o.url(o.allowing, '/public/gate-browser.html'));
      expect(await next.$eval('p', (p) => p.textContent)).toBe('/public/gate-browser.html');
      expect(paths(o.allowing, '/private/gate-browser.html')).toEqual([]);
      await handle.dispose();
    } finally {
      await own.close();
      await gate.close();
    }
  });
});
