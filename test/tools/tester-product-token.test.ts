// Issue 11 in the tester (`robots-gate serve`, real Chromium): real crawler headers, the product
// token field with fallback, the token said back with where it came from, a bare browser string
// refused as a gate would, and the warning when the file names another product of the header.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS, NAMING_FILE } from '../helpers/crawler-headers.js';
import { launchChromium } from './browser.js';
import { startServe, type ServeProcess } from './cli.js';
import { startAll } from '../helpers/start-all.js';

let serve: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  await startAll([startServe([]).then((s) => (serve = s)), launchChromium().then((b) => (browser = b))]);
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

async function tester(robots: string, userAgent: string, urls: string[], productToken = ''): Promise<Page> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  (page as Page & { errors?: string[] }).errors = errors;
  await page.goto(`${serve.url}/`);
  await page.locator('#verdicts [data-verdict]').first().waitFor();
  await page.fill('#robots', robots);
  await page.fill('#product-token', productToken);
  await page.fill('#ua', userAgent);
  await page.fill('#urls', urls.join('\n'));
  return page;
}

const verdicts = (page: Page) =>
  page.locator('#verdicts [data-verdict]').evaluateAll((els) => els.map((e) => [e.querySelector('.url')!.textContent, e.getAttribute('data-verdict')]));

describe('the tester and product tokens', () => {
  it("GPTBot's real header is disallowed by the GPTBot group, and the page says where the token came from", async () => {
    const page = await tester(NAMING_FILE, HEADERS.gptbot, ['https://example.com/articles/1', 'https://example.com/']);
    await expect.poll(() => verdicts(page)).toEqual([
      ['https://example.com/articles/1', 'disallowed'],
      ['https://example.com/', 'disallowed'],
    ]);
    await expect.poll(() => page.textContent('#ua-info')).toContain('Product token: GPTBot, read from "compatible; GPTBot/1.1" in the user agent');
    expect(await page.locator('#verdicts button').first().textContent()).toContain('Disallow: / on line 12, in the group for GPTBot (line 11)');
    expect(await page.locator('#ua-info').getAttribute('class')).not.toContain('error');
    expect((page as Page & { errors?: string[] }).errors).toEqual([]);
    await page.close();
  });

  it('Googlebot smartphone, AI2Bot with its token typed, and fallback tokens', async () => {
    const page = await tester(NAMING_FILE, HEADERS.googlebotSmartphone, ['https://example.com/google-only/x', 'https://example.com/private/x']);
    await expect.poll(() => verdicts(page)).toEqual([
      ['https://example.com/google-only/x', 'disallowed'],
      ['https://example.com/private/x', 'allowed'],
    ]);
    await page.fill('#ua', HEADERS.ai2bot);
    await page.fill('#urls', 'https://example.com/ai2-only/x');
    // Without its token, AI2Bot's header names no crawler.
    await expect.poll(() => page.textContent('#ua-info')).toContain('names no crawler');
    await page.fill('#product-token', 'AI2Bot');
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/ai2-only/x', 'disallowed']]);
    await expect.poll(() => page.textContent('#ua-info')).toContain('Product token: AI2Bot, as given');

    await page.fill('#robots', 'User-agent: MyBot\nDisallow: /bot/\n\nUser-agent: *\nDisallow: /\n');
    await page.fill('#ua', 'MyBot-News/1.0 MyBot/1.0');
    await page.fill('#product-token', 'MyBot-News, MyBot');
    await page.fill('#urls', 'https://example.com/bot/1\nhttps://example.com/other');
    await expect.poll(() => verdicts(page)).toEqual([
      ['https://example.com/bot/1', 'disallowed'],
      ['https://example.com/other', 'allowed'],
    ]);
    await expect.poll(() => page.textContent('#ua-info')).toContain('Product token: MyBot, as given (MyBot-News is not named in this file)');
    await page.close();
  });

  it('a bare Chrome user agent is shown as a gate would refuse it; a token it does not carry too', async () => {
    const page = await tester(NAMING_FILE, HEADERS.chrome, ['https://example.com/private/x']);
    await expect.poll(() => page.textContent('#ua-info')).toContain('This user agent names no crawler');
    expect(await page.locator('#ua-info').getAttribute('class')).toContain('error');
    expect(await page.textContent('#ua-info')).toContain('Matched as "Mozilla"');
    // The parser's reading: only the * group applies to Mozilla.
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/private/x', 'disallowed']]);
    await page.fill('#product-token', 'GPTBot');
    await expect.poll(() => page.textContent('#ua-info')).toContain('The product token "GPTBot" does not appear in the user agent');
    await page.close();
  });

  it('warns when the file names none of the tokens but another product of the user agent', async () => {
    const page = await tester('User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /star/\n', 'MyCrawler/1.0 BadBot/1.0', ['https://example.com/page']);
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/page', 'allowed']]);
    await expect.poll(() => page.textContent('#ua-warnings')).toContain(
      'No group names "MyCrawler", so the "*" group decided; but the user agent also carries "BadBot", which the group at line 1 names: if that is your crawler, enter BadBot as its product token.',
    );
    await page.fill('#product-token', 'BadBot');
    await expect.poll(() => verdicts(page)).toEqual([['https://example.com/page', 'disallowed']]);
    await expect.poll(() => page.locator('#ua-warnings li').count()).toBe(0);
    await page.close();
  });
});
