// A page that opens two popups at once, on a machine whose cores are busy: Chromium sends a new
// page's first request while the page still waits for the debugger, so the second popup's
// navigation could leave before its own session intercepted it (ungated, unspaced, Chromium's
// User-Agent: 4 to 5 runs of 6 before document-gate.ts came to stand behind the page sessions
// with Playwright in this process, 3 of 6 with Puppeteer). The load is two busy loops at the lowest priority, for this
// file's few seconds only: they take CPU from nothing else that wants it, yet widen the race.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { RobotsGate } from '../../src/gate/index.js';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM, gatePage, launchChromium, type GateHandle } from '../../src/browser/index.js';
import { gatePage as gatePuppeteerPage } from '../../src/puppeteer/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

const H = '127.0.0.1';
const UA = 'PopupRaceBot/1.0 (+https://example.test/bot)';
const html = (path: string) => `<!doctype html><title>${path}</title><p>${path}</p>`;

describe('popups opened at once on a busy machine', () => {
  let browser: Browser;
  let opener: VirtualHosts;
  let target: VirtualHosts;
  const burners: ChildProcess[] = [];

  beforeAll(async () => {
    opener = await startVirtualHosts({ [H]: (req, res) => void (req.url === '/robots.txt' ? res.end('User-agent: *\nAllow: /\n') : res.writeHead(200, { 'content-type': 'text/html' }).end(html(req.url ?? ''))) });
    target = await startVirtualHosts({ [H]: (req, res) => void (req.url === '/robots.txt' ? res.end('User-agent: *\nDisallow: /x\n') : res.writeHead(200, { 'content-type': 'text/html' }).end(html(req.url ?? ''))) });
    browser = await launchChromium();
    for (let i = 0; i < 2; i++) burners.push(spawn('nice', ['-n', '19', process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' }));
  });
  afterAll(async () => {
    for (const b of burners) b.kill('SIGKILL');
    await browser?.close();
    await opener?.close();
    await target?.close();
  });

  /** A gated page (made by `open`, a fresh context each) opens two disallowed popups at once, six
   *  times: none may reach its server, each must be reported blocked. */
  async function twoDisallowedPopups(name: string, open: (gate: RobotsGate) => Promise<{ goto(url: string): Promise<unknown>; openTwo(urls: string[]): Promise<unknown>; handle: GateHandle<{ url: string; decision: { allowed: boolean } | null }>; close(): Promise<void> }>): Promise<void> {
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0 });
    try {
      for (let i = 0; i < 6; i++) {
        const { goto, openTwo, handle, close } = await open(gate);
        const urls = [`${target.origin(H)}/x${name}1-${i}`, `${target.origin(H)}/x${name}2-${i}`];
        const blocked = Promise.all(urls.map((u) => new Promise<void>((resolve) => handle.on('blocked', (b) => b.url === u && resolve()))));
        await goto(`${opener.origin(H)}/opener-${name}-${i}`);
        await openTwo(urls);
        await Promise.race([blocked, new Promise((r) => setTimeout(r, 5_000))]);
        await new Promise((r) => setTimeout(r, 200));
        expect(target.log.filter((r) => r.path.startsWith('/x')).map((r) => `${r.path} ${r.userAgent}`)).toEqual([]);
        expect(handle.blocked.map((b) => b.url).filter((u) => urls.includes(u)).sort()).toEqual(urls);
        await handle.dispose();
        await close();
      }
    } finally {
      await gate.close();
    }
  }

  test('Playwright in this process: no disallowed popup reaches its server, and each is reported blocked', async () => {
    await twoDisallowedPopups('w', async (gate) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      return {
        goto: (url: string) => page.goto(url),
        openTwo: (urls: string[]) => page.evaluate(([a, b]) => void (window.open(a), window.open(b)), urls),
        handle: await gatePage(page, gate),
        close: () => context.close(),
      };
    });
  });

  test('Puppeteer: no disallowed popup reaches its server, and each is reported blocked', async () => {
    const pup = await puppeteer.launch({ executablePath: DEFAULT_CHROMIUM, args: [...CHROMIUM_ARGS], headless: true });
    try {
      await twoDisallowedPopups('p', async (gate) => {
        const context = await pup.createBrowserContext();
        const page = await context.newPage();
        return {
          goto: (url: string) => page.goto(url),
          openTwo: (urls: string[]) => page.evaluate(([a, b]) => void (window.open(a), window.open(b)), urls),
          handle: await gatePuppeteerPage(page, gate),
          close: () => context.close(),
        };
      });
    } finally {
      await pup.close();
    }
  });

  test('Playwright: allowed popups go with the gate\'s User-Agent, one host interval apart', async () => {
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 600, jitter: 0 });
    try {
      for (let i = 0; i < 3; i++) {
        const context = await browser.newContext();
        const page = await context.newPage();
        const handle = await gatePage(page, gate);
        const allowed: string[] = [];
        handle.on('allowed', (e) => allowed.push(e.url));
        await page.goto(`${opener.origin(H)}/opener-ok-${i}`);
        const from = target.log.length;
        const popups = [`${target.origin(H)}/ok1-${i}`, `${target.origin(H)}/ok2-${i}`];
        await page.evaluate(([a, b]) => void (window.open(a), window.open(b)), popups);
        const t0 = Date.now();
        while (target.log.slice(from).filter((r) => r.path.startsWith('/ok') && r.endedAt !== undefined).length < 2 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
        const sent = target.log.slice(from);
        expect(sent.filter((r) => r.path.startsWith('/ok')).map((r) => r.path).sort()).toEqual(popups.map((u) => new URL(u).pathname).sort());
        expect(sent.filter((r) => r.userAgent !== UA)).toEqual([]);
        // Each request after the end of the one before it, by the host's interval (robots.txt included).
        for (let k = 1; k < sent.length; k++) expect(sent[k]!.startedAt - sent[k - 1]!.endedAt!).toBeGreaterThanOrEqual(600 - 5);
        // Each document decided and reported once, whichever session paused it.
        await new Promise((r) => setTimeout(r, 300));
        const documents = allowed.filter((u) => !u.endsWith('/favicon.ico'));
        expect(documents.sort()).toEqual([`${opener.origin(H)}/opener-ok-${i}`, ...popups].sort());
        await handle.dispose();
        await context.close();
      }
    } finally {
      await gate.close();
    }
  });
});
