// The DevTools endpoint driven by chrome-remote-interface: what a page requests passes the gate
// before it leaves the browser (the servers' logs show it), Robots.requestBlocked says why with
// the ids of the client's own Network events, and the endpoint answers only with its token.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CDN, CDN_ROBOTS, WWW } from './site.js';
import { connect, openPage, sleep, startHarness, type Harness, type Raw } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('gating', () => {
  let c: Raw;
  beforeAll(async () => {
    c = await connect(h.endpoint.webSocketDebuggerUrl);
  });
  afterAll(async () => {
    await c?.close();
  });

  test('a disallowed subresource never reaches its server; Robots.requestBlocked names rule, line and policy, with Network ids', async () => {
    const { sessionId, targetId } = await openPage(c);
    await c.send('Page.navigate', { url: h.site.url(WWW, '/') }, sessionId);
    await c.waitFor('Page.loadEventFired');
    const fetched = await c.send('Runtime.evaluate', { expression: 'window.fetched', awaitPromise: true }, sessionId);
    expect(fetched.result.value).toBe('failed');
    await sleep(200);

    // What reached the CDN: its robots.txt and the allowed assets, nothing under /private/.
    expect(h.site.paths(CDN).sort()).toEqual(['/public/app.js', '/public/logo.png', '/robots.txt']);
    const blocked = c.events.filter((e) => e.method === 'Robots.requestBlocked' && e.sessionId === sessionId).map((e) => e.params);
    expect(blocked.map((b) => new URL(b.url).pathname).sort()).toEqual(['/private/data.json', '/private/pixel.png', '/private/track.js']);
    const track = blocked.find((b) => b.url.endsWith('/private/track.js'))!;
    expect(track).toMatchObject({
      reason: 'disallowed-by-rule',
      rule: { type: 'disallow', pattern: '/private/', line: 3 },
      group: { userAgents: ['*'], lines: [1] },
      robotsUrl: h.site.url(CDN, '/robots.txt'),
      robotsStatus: 200,
      type: 'Script',
      isNavigation: false,
      targetId,
      frameId: targetId,
      productToken: 'EndpointBot',
      errorText: 'net::ERR_BLOCKED_BY_CLIENT',
    });
    const { createHash } = await import('node:crypto');
    expect(track.sha256).toBe(createHash('sha256').update(CDN_ROBOTS).digest('hex'));
    // The event's requestId is the client's Network requestId, failed as blocked by client.
    const failed = c.events.filter((e) => e.method === 'Network.loadingFailed' && e.sessionId === sessionId).map((e) => e.params);
    for (const b of blocked) {
      const f = failed.find((x) => x.requestId === b.requestId);
      expect(f, b.url).toBeDefined();
      expect(f!.errorText).toMatch(/^net::ERR_BLOCKED_BY_CLIENT/);
      const sent = c.events.find((e) => e.method === 'Network.requestWillBeSent' && e.params.requestId === b.requestId)!;
      expect(sent.params.request.url).toBe(b.url);
      expect(sent.params.frameId).toBe(b.frameId);
    }
    // Every request left with the gate's User-Agent.
    for (const r of h.site.hosts.log) expect(r.userAgent).toBe('EndpointBot/1.0 (+https://example.test/bot)');
  });

  test('a blocked navigation fails as ERR_BLOCKED_BY_CLIENT; redirects, iframes and popups are gated hop by hop', async () => {
    const { sessionId } = await openPage(c);
    const nav = await c.send('Page.navigate', { url: h.site.url(WWW, '/admin') }, sessionId);
    expect(nav.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(h.site.paths(WWW)).not.toContain('/admin');
    const ev = await c.waitFor('Robots.requestBlocked', (p) => p.url.endsWith('/admin'));
    expect(ev).toMatchObject({ isNavigation: true, type: 'Document', rule: { pattern: '/admin', line: 2 } });

    // An allowed page redirects into a disallowed path: the hop is decided by its own origin's rules.
    const hop = await c.send('Page.navigate', { url: h.site.url(WWW, '/go-private') }, sessionId);
    expect(hop.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
    const hopEvent = await c.waitFor('Robots.requestBlocked', (p) => p.url.endsWith('/private/landing.html'));
    expect(hopEvent).toMatchObject({ redirectedFrom: h.site.url(WWW, '/go-private'), isNavigation: true, rule: { line: 3 } });
    expect(h.site.paths(WWW)).toContain('/go-private');
    expect(h.site.paths(CDN)).not.toContain('/private/landing.html');

    // A page from a data: URL (no request) opens an iframe into a disallowed path, and a popup to one.
    const html = `<iframe src="${h.site.url(CDN, '/private/frame.html')}"></iframe><iframe src="${h.site.url(CDN, '/public/frame.html')}"></iframe>`;
    await c.send('Page.navigate', { url: `data:text/html,${encodeURIComponent(html)}` }, sessionId);
    await c.waitFor('Robots.requestBlocked', (p) => p.url.endsWith('/private/frame.html'));
    // The popup is a target of its own: the browser-level session that enabled Robots sees it.
    await c.send('Robots.enable');
    await c.send('Runtime.evaluate', { expression: `window.open(${JSON.stringify(h.site.url(CDN, '/private/popup.html'))}); 1`, userGesture: true }, sessionId);
    const popup = await c.waitFor('Robots.requestBlocked', (p) => p.url.endsWith('/private/popup.html'));
    expect(popup.isNavigation).toBe(true);
    await sleep(300);
    const cdn = h.site.paths(CDN);
    expect(cdn).toContain('/public/frame.html');
    expect(cdn).not.toContain('/private/frame.html');
    expect(cdn).not.toContain('/private/popup.html');
    await c.send('Robots.disable');
  });

  test('Robots.explain decides without requesting the page; unknown Robots methods and bad params are errors', async () => {
    const before = h.site.hosts.log.length;
    const r = await c.send('Robots.explain', { url: h.site.url(CDN, '/private/report.pdf') });
    expect(r).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', rule: { line: 3, pattern: '/private/' }, robotsUrl: h.site.url(CDN, '/robots.txt') });
    expect((await c.send('Robots.explain', { url: h.site.url(CDN, '/public/x') })).allowed).toBe(true);
    expect(h.site.hosts.log.length).toBe(before);
    await expect(c.send('Robots.explain', {})).rejects.toThrow(/url/);
    await expect(c.send('Robots.explain', { url: 'ftp://x.test/' })).rejects.toThrow(/Robots.explain/);
    await expect(c.send('Robots.nothing')).rejects.toThrow(/wasn't found/);
  });

  test("a client's own Fetch interception works behind the gate and cannot let a blocked request out", async () => {
    const { sessionId } = await openPage(c, false);
    await c.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }, sessionId);
    const seen: string[] = [];
    const onPaused = (m: { method: string; params: Record<string, any>; sessionId?: string }) => {
      if (m.method !== 'Fetch.requestPaused' || m.sessionId !== sessionId) return;
      const url: string = m.params.request.url;
      seen.push(url);
      // The client fulfills its own copy of the page and lets the rest continue.
      if (url.endsWith('/mine.html')) {
        const body = Buffer.from(`<script src="${h.site.url(CDN, '/private/own.js')}"></script><img src="${h.site.url(CDN, '/public/own.png')}">`).toString('base64');
        void c.send('Fetch.fulfillRequest', { requestId: m.params.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body }, sessionId);
      } else void c.send('Fetch.continueRequest', { requestId: m.params.requestId }, sessionId).catch(() => {});
    };
    c.onEvent(onPaused);
    await c.send('Page.navigate', { url: h.site.url(WWW, '/mine.html') }, sessionId);
    for (let i = 0; i < 100 && !h.site.paths(CDN).includes('/public/own.png'); i++) await sleep(50);
    await sleep(200);
    expect(seen).toContain(h.site.url(WWW, '/mine.html'));
    expect(seen).toContain(h.site.url(CDN, '/private/own.js'));
    expect(h.site.paths(WWW)).not.toContain('/mine.html'); // the client answered it
    expect(h.site.paths(CDN)).toContain('/public/own.png');
    expect(h.site.paths(CDN)).not.toContain('/private/own.js');
  });
});

describe('the gate cannot be turned off by a client', () => {
  test('Fetch.disable, auto-attach off, detaching its own sessions, foreign sessions: the next page is still gated', async () => {
    const c = await connect(h.endpoint.webSocketDebuggerUrl);
    try {
      const { sessionId, targetId } = await openPage(c, false);
      await c.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }, sessionId);
      await c.send('Fetch.disable', {}, sessionId);
      await c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
      await c.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true });
      await c.send('Target.detachFromTarget', { targetId }).catch(() => {});
      // A session the client did not open (a guess at the gate's) is neither addressable nor detachable.
      const guess = 'A'.repeat(32);
      await expect(c.send('Fetch.disable', {}, guess)).rejects.toThrow(/Session with given id not found/);
      await expect(c.send('Target.detachFromTarget', { sessionId: guess })).rejects.toThrow(/refused.*not this client's/);
      await expect(c.send('Target.sendMessageToTarget', { sessionId: guess, message: '{"id":1,"method":"Fetch.disable"}' })).rejects.toThrow(/refused/);
      await expect(c.send('Target.exposeDevToolsProtocol', { targetId })).rejects.toThrow(/refused/);
      await expect(c.send('Browser.crash')).rejects.toThrow(/refused/);
      // A session of the client's own, attached non-flat: a command wrapped in another's message
      // passed no check (a nested Target.createTarget opened a disallowed URL unheld, a nested
      // Network.loadNetworkResource fetched one). Nothing nested is relayed.
      const nested = await c.send('Target.createTarget', { url: 'about:blank' });
      const { sessionId: nonFlat } = await c.send('Target.attachToTarget', { targetId: nested.targetId, flatten: false });
      for (const inner of [
        { id: 101, method: 'Target.createTarget', params: { url: h.site.url(CDN, '/private/nested-target.html') } },
        { id: 102, method: 'Network.loadNetworkResource', params: { url: h.site.url(CDN, '/private/nested-resource.js'), options: { disableCache: true, includeCredentials: false } } },
      ]) {
        await expect(c.send('Target.sendMessageToTarget', { sessionId: nonFlat, message: JSON.stringify(inner) })).rejects.toThrow(/refused: nested \(non-flat\) sessions are not relayed/);
      }
      await sleep(300);
      expect(h.site.paths(CDN).filter((p) => p.startsWith('/private/nested'))).toEqual([]);
      await c.send('Target.closeTarget', { targetId: nested.targetId });

      const again = await openPage(c, false);
      const nav = await c.send('Page.navigate', { url: h.site.url(CDN, '/private/after.html') }, again.sessionId);
      expect(nav.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
      expect(h.site.paths(CDN)).not.toContain('/private/after.html');
    } finally {
      await c.close();
    }
  });

  test('Browser.close disconnects that client only: the browser and the gate serve the next one', async () => {
    const a = await connect(h.endpoint.webSocketDebuggerUrl);
    await a.send('Browser.close');
    await sleep(200);
    await expect(a.send('Browser.getVersion')).rejects.toThrow();
    const b = await connect(h.endpoint.webSocketDebuggerUrl);
    try {
      const { sessionId } = await openPage(b);
      const nav = await b.send('Page.navigate', { url: h.site.url(CDN, '/private/b.html') }, sessionId);
      expect(nav.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
    } finally {
      await b.close();
    }
  });
});

describe('the endpoint', () => {
  const plain = () => `http://127.0.0.1:${h.endpoint.port}`;

  test('serves /json/version and /json/list under its token, as Chromium does', async () => {
    const v = await fetch(`${h.endpoint.httpUrl}/json/version`).then((r) => r.json());
    expect(v.webSocketDebuggerUrl).toBe(h.endpoint.webSocketDebuggerUrl);
    expect(v['User-Agent']).toBe('EndpointBot/1.0 (+https://example.test/bot)');
    expect(v.Browser).toMatch(/Chrome\//);
    const list = await fetch(`${h.endpoint.httpUrl}/json/list`).then((r) => r.json());
    const page = list.find((t: { type: string }) => t.type === 'page');
    expect(page.webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${h.endpoint.port}/${h.endpoint.token}/devtools/page/${page.id}`);
    // /json/new takes the whole query as the URL, as Chromium does; the page loads it, gated.
    const made = await fetch(`${h.endpoint.httpUrl}/json/new?${h.site.url(WWW, '/made?a=1&b=2')}`).then((r) => r.json());
    for (let i = 0; i < 40 && !h.site.paths(WWW).includes('/made?a=1&b=2'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(h.site.paths(WWW)).toContain('/made?a=1&b=2');
    expect(made.webSocketDebuggerUrl).toContain(`/devtools/page/${made.id}`);
    // `?token=` works on Chromium's own paths too.
    expect((await fetch(`${plain()}/json/version?token=${h.endpoint.token}`)).status).toBe(200);
  });

  test("serves Chromium's /json/protocol with the Robots domain: a client that builds its API from it drives the page, gated", async () => {
    const protocol = await fetch(`${h.endpoint.httpUrl}/json/protocol`).then((r) => r.json());
    const domains = protocol.domains.map((d: { domain: string }) => d.domain);
    expect(domains).toEqual(expect.arrayContaining(['Page', 'Network', 'Fetch', 'Target', 'Runtime', 'Robots']));
    const version = await fetch(`${h.endpoint.httpUrl}/json/version`).then((r) => r.json());
    expect(`${protocol.version.major}.${protocol.version.minor}`).toBe(version['Protocol-Version']);
    // chrome-remote-interface without `local` reads /json/list and /json/protocol over HTTP
    // (alterPath puts the token in front; it also sees the page socket's path, which has it).
    const CDP = (await import('chrome-remote-interface')).default;
    const token = `/${h.endpoint.token}`;
    const alterPath = (p: string) => (p.startsWith(`${token}/`) ? p : `${token}${p}`);
    const client: any = await CDP({ host: '127.0.0.1', port: h.endpoint.port, alterPath, target: (list: Array<{ type: string }>) => list.findIndex((t) => t.type === 'page') });
    try {
      expect(typeof client.Robots.explain).toBe('function');
      await client.Robots.enable();
      await client.Page.enable();
      const blocked = new Promise<any>((resolve) => client.Robots.requestBlocked(resolve));
      const nav = await client.Page.navigate({ url: h.site.url(CDN, '/private/from-protocol.html') });
      expect(nav.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
      expect(await blocked).toMatchObject({ rule: { line: 3 } });
      expect(await client.Robots.explain({ url: h.site.url(CDN, '/public/x') })).toMatchObject({ allowed: true });
    } finally {
      await client.close();
    }
    expect(h.site.paths(CDN)).not.toContain('/private/from-protocol.html');
  });

  test('answers nothing without the token, nor to a Host that is not loopback, nor to a web page', async () => {
    for (const path of ['/json/version', '/json/list', '/wrong-token/json/version', `/${h.endpoint.token.slice(1)}/json/version`]) {
      const r = await fetch(`${plain()}${path}`);
      expect(r.status, path).toBe(403);
      expect(await r.text()).toMatch(/needs its token/);
    }
    const wsWithout = h.endpoint.webSocketDebuggerUrl.replace(`/${h.endpoint.token}`, '');
    await expect(connect(wsWithout)).rejects.toThrow(/403/);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${h.endpoint.httpUrl}/json/version`, { headers: { host: 'evil.test' } }, (res) => resolve(res.statusCode!));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    const { WebSocket } = await import('ws');
    const fromPage = await new Promise<string>((resolve) => {
      const ws = new WebSocket(h.endpoint.webSocketDebuggerUrl, { origin: 'http://www.shop.test' });
      ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => {});
    });
    expect(fromPage).toBe('403');
  });

  test('a page socket (/devtools/page/ID) drives that page, gated', async () => {
    const list = await fetch(`${h.endpoint.httpUrl}/json/new?about:blank`).then((r) => r.json());
    const c = await connect(list.webSocketDebuggerUrl);
    try {
      await c.send('Robots.enable');
      await c.send('Page.enable');
      const nav = await c.send('Page.navigate', { url: h.site.url(CDN, '/private/page-socket.html') });
      expect(nav.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
      const ev = await c.waitFor('Robots.requestBlocked');
      expect(ev).toMatchObject({ targetId: list.id, rule: { line: 3 } });
      expect(c.events.every((e) => e.sessionId === undefined)).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('a binary that is not Chromium', () => {
  test('one that never answers on the pipe fails the start with BrowserStartError, not a hang', async () => {
    const { DevToolsEndpoint } = await import('../../src/devtools/endpoint.js');
    const { BrowserStartError } = await import('../../src/devtools/errors.js');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-not-chromium-'));
    const fake = path.join(dir, 'chromium');
    fs.writeFileSync(fake, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    try {
      const started = DevToolsEndpoint.start({ gate: h.gate, port: 0, executablePath: fake, startTimeoutMs: 1_000 });
      await expect(started).rejects.toBeInstanceOf(BrowserStartError);
      await expect(started).rejects.toThrow(/no DevTools answer on its pipe within 1000 ms/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
