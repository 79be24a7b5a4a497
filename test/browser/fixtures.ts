// Loopback origins for the browser tests: a page, and three origins the page pulls a script, a
// stylesheet, an image and a fetch() from: one disallows those paths, one answers robots.txt
// with 503 (unreachable: all disallowed, RFC 9309 §2.3.1.4), one allows; and one whose robots.txt
// is slow to answer.
// Each origin is its own server on 127.0.0.1 with its own port, so the browser, Node and the
// gate all reach them without any name mapping.
import type http from 'node:http';
import type { Browser } from 'playwright-core';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM, loadPlaywright } from '../../src/browser/index.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

export interface Origins {
  page: VirtualHosts;
  disallowing: VirtualHosts;
  unreachable: VirtualHosts;
  allowing: VirtualHosts;
  slow: VirtualHosts;
  url(server: VirtualHosts, path: string): string;
  close(): Promise<void>;
}

const H = '127.0.0.1';

function assets(robots: { status: number; body: string }, delayRobotsMs = 0) {
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    // Hold robots.txt a moment so every resource request from the page arrives while it is cold.
    if (path === '/robots.txt') {
      await new Promise((r) => setTimeout(r, delayRobotsMs));
      return void res.writeHead(robots.status, { 'content-type': 'text/plain' }).end(robots.body);
    }
    const cors = { 'access-control-allow-origin': '*' };
    if (path.endsWith('.js')) return void res.writeHead(200, { ...cors, 'content-type': 'text/javascript' }).end(`window.loaded = (window.loaded || []).concat(${JSON.stringify(req.url)});`);
    if (path.endsWith('.css')) return void res.writeHead(200, { ...cors, 'content-type': 'text/css' }).end('body { color: rgb(1, 2, 3); }');
    if (path.endsWith('.png')) {
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
      return void res.writeHead(200, { ...cors, 'content-type': 'image/png' }).end(png);
    }
    if (path.endsWith('.json')) return void res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}');
    if (path.startsWith('/redirect')) {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
      return void res.writeHead(302, { ...cors, location: to }).end();
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${path}</title><p>${path}</p>`);
  };
}

/** The page's HTML: each asset origin is asked for a script, a stylesheet, an image and a fetch(). */
export function pageHtml(o: Pick<Origins, 'disallowing' | 'unreachable' | 'allowing' | 'url'>): string {
  const tags = [o.disallowing, o.unreachable, o.allowing]
    .map((s) => {
      const u = (p: string) => o.url(s, p);
      return [
        `<script src="${u('/assets/app.js')}"></script>`,
        `<link rel="stylesheet" href="${u('/assets/site.css')}">`,
        `<img src="${u('/assets/logo.png')}">`,
        `<script>window.fetches = (window.fetches || []).concat(fetch(${JSON.stringify(u('/api/data.json'))}).then(r => r.status, e => 'failed'))</script>`,
      ].join('\n');
    })
    .join('\n');
  return `<!doctype html><html><head><title>gated page</title>${tags}</head><body><h1 id="ok">rendered</h1>
<script>document.getElementById('ok').dataset.js = 'ran'</script></body></html>`;
}

export async function startOrigins(): Promise<Origins> {
  const disallowing = await startVirtualHosts({ [H]: assets({ status: 200, body: 'User-agent: *\nDisallow: /assets/\nDisallow: /api/\n' }, 150) });
  const unreachable = await startVirtualHosts({ [H]: assets({ status: 503, body: 'down for maintenance' }, 150) });
  const allowing = await startVirtualHosts({ [H]: assets({ status: 200, body: 'User-agent: *\nDisallow: /private/\n' }, 150) });
  // Its robots.txt takes 1.5 s: requests wait for their decision that long.
  const slow = await startVirtualHosts({ [H]: assets({ status: 200, body: 'User-agent: *\nDisallow: /assets/\n' }, 1_500) });
  const url = (server: VirtualHosts, path: string) => `${server.origin(H)}${path}`;
  const page = await startVirtualHosts({
    [H]: (req, res) => {
      const path = req.url ?? '/';
      if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /nope\n');
      if (path === '/go-private') return void res.writeHead(302, { location: url(allowing, '/private/secret.html') }).end();
      if (path === '/go-public') return void res.writeHead(301, { location: url(allowing, '/public/index.html') }).end();
      if (path === '/with-frames') {
        // Frames are navigations of the page: one into a disallowed path, one allowed; and a
        // dedicated worker whose own fetch() goes where robots.txt says no.
        const worker = `fetch(${JSON.stringify(url(disallowing, '/api/worker.json'))}).then(r => postMessage(r.status), () => postMessage('failed'))`;
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(
          `<!doctype html><iframe src="${url(disallowing, '/assets/frame.html')}"></iframe><iframe id="ok" src="${url(allowing, '/public/frame.html')}"></iframe>` +
            `<script>window.worker = new Promise((resolve) => { const w = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(worker)}], { type: 'text/javascript' }))); w.onmessage = (e) => resolve(e.data) })</script>`,
        );
      }
      if (path === '/speculation') {
        // Speculation rules: Chromium would prefetch and prerender these from its browser process.
        const rules = { prefetch: [{ source: 'list', urls: [url(allowing, '/private/prefetch.html')] }], prerender: [{ source: 'list', urls: [url(allowing, '/private/prerender.html')] }] };
        return void res
          .writeHead(200, { 'content-type': 'text/html', 'speculation-rules': '"/speculation-rules.json"' })
          .end(`<!doctype html><p>speculation</p><script type="speculationrules">${JSON.stringify(rules)}</script>`);
      }
      if (path === '/speculation-rules.json') {
        const rules = { prefetch: [{ source: 'list', urls: [url(allowing, '/private/from-header.html')] }] };
        return void res.writeHead(200, { 'content-type': 'application/speculationrules+json' }).end(JSON.stringify(rules));
      }
      if (path === '/shared-worker.js') {
        // A shared worker is a target of its own, outside its page's session.
        const to = JSON.stringify(url(disallowing, '/api/shared.json'));
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(`fetch(${to}).catch(() => {});`);
      }
      if (path === '/with-redirects') {
        // Subresources whose first URL is allowed and whose redirect goes where robots.txt says no
        // (an image), or where it says yes (a fetch).
        const hop = (to: string) => url(allowing, `/redirect?to=${encodeURIComponent(to)}`);
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(
          `<!doctype html><img src="${hop(url(disallowing, '/assets/moved.png'))}">` +
            `<script>window.done = fetch(${JSON.stringify(hop(url(allowing, '/api/moved.json')))}).then(r => r.status, () => 'failed')</script>`,
        );
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml({ disallowing, unreachable, allowing, url }));
    },
  });
  return {
    page,
    disallowing,
    unreachable,
    allowing,
    slow,
    url,
    close: async () => {
      await Promise.all([page.close(), disallowing.close(), unreachable.close(), allowing.close(), slow.close()]);
    },
  };
}

/**
 * Chromium behind a Playwright server of its own, reached over its WebSocket: the client holds
 * no server-side objects, so gatePage takes its public-session path.
 */
export async function connectChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const { chromium } = await loadPlaywright();
  const server = await chromium.launchServer({ executablePath: DEFAULT_CHROMIUM, args: [...CHROMIUM_ARGS] });
  const browser = await chromium.connect(server.wsEndpoint());
  return {
    browser,
    close: async () => {
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}
