// The tester at a laptop's width (1366 px, real Chromium): a long line scrolls inside the file view
// instead of widening the page past the window (it measured 1376 px and cut off the verdicts); and a
// URL on another origin than the file's is judged with a warning, not silently.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { startServe, type ServeProcess } from './cli.js';

let hosts: VirtualHosts | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  // One at a time, each kept as soon as it runs: a failure of a later one still leaves the earlier
  // ones to afterAll to stop.
  hosts = await startVirtualHosts({
    'site.test': (_q, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n'),
    // Its robots.txt redirects to site.test's: that file is moved.test's policy (RFC 9309 §2.3.1.2).
    'moved.test': (_q, res) => void res.writeHead(301, { location: `${hosts!.origin('site.test')}/robots.txt` }).end(),
  });
  serve = await startServe(hosts.resolve.flatMap((r) => ['--resolve', r]));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await hosts?.close();
});

async function open(width: number): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${serve!.url}/`);
  await page.locator('#verdicts [data-verdict]').first().waitFor();
  return page;
}

const verdictTexts = (page: Page) => page.locator('#verdicts button').evaluateAll((els) => els.map((e) => e.textContent ?? ''));

describe('the tester layout', () => {
  it('keeps a long line scrolling inside the file view at 1366 px', async () => {
    const page = await open(1366);
    const long = `Disallow: /${'segment/'.repeat(60)}`;
    await page.fill('#robots', `User-agent: *\n${long}\nAllow: /\n`);
    await page.fill('#urls', 'https://example.com/\nhttps://example.com/segment/');
    await expect.poll(() => page.locator('#file-view .ln[data-line="2"] .text').textContent()).toBe(long);
    const m = await page.evaluate(() => {
      const view = document.getElementById('file-view')!;
      const verdicts = document.getElementById('verdicts')!.getBoundingClientRect();
      return { page: document.documentElement.scrollWidth, window: window.innerWidth, viewScroll: view.scrollWidth, viewWidth: view.clientWidth, verdictsRight: verdicts.right };
    });
    await page.screenshot({ path: path.join(ARTIFACTS, 'tester-1366.png'), fullPage: true });
    expect(m.page).toBeLessThanOrEqual(m.window);
    expect(m.verdictsRight).toBeLessThanOrEqual(m.window);
    // The line is still there, to scroll to.
    expect(m.viewScroll).toBeGreaterThan(m.viewWidth);
    await page.close();
  });
});

describe('URLs on another origin', () => {
  it('a pasted file: a URL on another origin than the first one gets a warning', async () => {
    const page = await open(1366);
    await page.fill('#robots', 'User-agent: *\nDisallow: /private/\n');
    await page.fill('#urls', 'https://shop.example/private/a\nhttps://shop.example/b\nhttps://other.example/private/a');
    await expect.poll(async () => (await verdictTexts(page)).length).toBe(3);
    const texts = await verdictTexts(page);
    expect(texts[0]).not.toMatch(/Another origin/);
    expect(texts[1]).not.toMatch(/Another origin/);
    expect(texts[2]).toMatch(/Another origin: not the first URL's \(https:\/\/shop\.example\).*https:\/\/other\.example has its own at https:\/\/other\.example\/robots\.txt/);
    await page.close();
  });

  it("a fetched file: every URL not on the file's origin gets a warning", async () => {
    const page = await open(1366);
    const origin = hosts!.origin('site.test');
    await page.fill('#fetch-url', `${origin}/`);
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status')).toMatch(/Loaded below/);
    await page.fill('#urls', `https://elsewhere.example/private/x\n${origin}/private/x`);
    await expect.poll(async () => (await verdictTexts(page)).join('\n')).toMatch(/elsewhere/);
    const texts = await verdictTexts(page);
    expect(texts[0]).toMatch(new RegExp(`Another origin: this file is ${origin.replace(/[.:/]/g, '\\$&')}'s robots\\.txt`));
    expect(texts[1]).not.toMatch(/Another origin/);
    await page.close();
  });

  it("a robots.txt redirected to another origin's governs the origin it was asked for, not the one it came from", async () => {
    const page = await open(1366);
    const moved = hosts!.origin('moved.test');
    await page.fill('#fetch-url', `${moved}/`);
    await page.click('#fetch-btn');
    await expect.poll(() => page.textContent('#fetch-status')).toMatch(/Loaded below/);
    await page.fill('#urls', `${moved}/private/x\n${hosts!.origin('site.test')}/private/x`);
    await expect.poll(async () => (await verdictTexts(page)).length).toBe(2);
    const texts = await verdictTexts(page);
    expect(texts[0]).not.toMatch(/Another origin/);
    expect(texts[1]).toMatch(new RegExp(`Another origin: this file is ${moved.replace(/[.:/]/g, '\\$&')}'s robots\\.txt`));
    await page.close();
  });
});
