// Launching Debian's Chromium: a clear error without it, and host names mapped the way the gate's
// `resolve` maps them, so a page on fake names is gated like one on the real web.
import { describe, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { BrowserNotFoundError, gatePage, hostResolverRules, launchChromium } from '../../src/browser/index.js';
import { site, startVirtualHosts } from '../helpers/hosts.js';

describe('launchChromium', () => {
  test('no Chromium at the path: an error naming Debian\'s chromium package', async () => {
    const err = await launchChromium({ executablePath: '/nonexistent/chromium' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrowserNotFoundError);
    expect(err).toMatchObject({ code: 'ERR_BROWSER_NOT_FOUND', executablePath: '/nonexistent/chromium' });
    expect((err as Error).message).toMatch(/apt-get install chromium/);
  });

  test('resolve entries become host resolver rules for that port only', () => {
    expect(hostResolverRules(['a.test:8080:127.0.0.1', 'b.test:443:127.0.0.2,127.0.0.3', 'c.test:80:[::1]'])).toBe(
      'MAP a.test:8080 127.0.0.1:8080, MAP b.test:443 127.0.0.2:443, MAP c.test:80 [::1]:80',
    );
    expect(() => hostResolverRules(['a.test'])).toThrow(/HOST:PORT:ADDR/);
  });

  test('pages on fake host names: the browser and the gate reach the same servers', async () => {
    let port = 0;
    const hosts = await startVirtualHosts({
      'shop.test': site('User-agent: *\nDisallow: /old\n', (path) =>
        path === '/old'
          ? undefined
          : `<!doctype html><p id="p">${path}</p><img src="http://cdn.test:${port}/img/a.png"><img src="http://ads.test:${port}/img/b.png">`,
      ),
      'cdn.test': site('User-agent: *\nAllow: /\n'),
      'ads.test': site('User-agent: *\nDisallow: /img/\n'),
    });
    port = hosts.port;
    const gate = new RobotsGate({ userAgent: 'GateTestBot/1.0', resolve: hosts.resolve });
    const browser = await launchChromium({ resolve: hosts.resolve });
    try {
      const page = await browser.newPage();
      const handle = await gatePage(page, gate);
      await page.goto(`http://shop.test:${port}/index`);
      expect(await page.textContent('#p')).toBe('/index');
      expect(hosts.requests('shop.test').map((r) => r.path).sort()).toEqual(['/index', '/robots.txt']);
      expect(hosts.requests('cdn.test').map((r) => r.path).sort()).toEqual(['/img/a.png', '/robots.txt']);
      expect(hosts.requests('ads.test').map((r) => r.path)).toEqual(['/robots.txt']);
      expect(handle.blocked.map((b) => b.url)).toEqual([`http://ads.test:${port}/img/b.png`]);
    } finally {
      await browser.close();
      await gate.close();
      await hosts.close();
    }
  });
});
