// A loopback site over two host names for the DevTools endpoint tests: www.shop.test serves a
// page that pulls a script, an image and a fetch() from cdn.shop.test, whose robots.txt
// disallows /private/ (line 3) for every crawler. The servers' logs show what left the browser.
import { startVirtualHosts, type HostHandler, type VirtualHosts } from '../helpers/hosts.js';

export const UA = 'EndpointBot/1.0 (+https://example.test/bot)';
export const WWW = 'www.shop.test';
export const CDN = 'cdn.shop.test';
export const CDN_ROBOTS = 'User-agent: *\nAllow: /\nDisallow: /private/\n';

export interface Site {
  hosts: VirtualHosts;
  url(host: string, path: string): string;
  /** Paths requested of `host`, robots.txt included. */
  paths(host: string): string[];
  close(): Promise<void>;
}

function handler(robots: string, pages: (path: string, url: (h: string, p: string) => string) => string | undefined, url: (h: string, p: string) => string): HostHandler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const cors = { 'access-control-allow-origin': '*' };
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    if (path === '/go-private') return void res.writeHead(302, { location: url(CDN, '/private/landing.html') }).end();
    if (path.endsWith('.js')) return void res.writeHead(200, { ...cors, 'content-type': 'text/javascript' }).end(`window.ran = (window.ran || []).concat(${JSON.stringify(path)});`);
    if (path.endsWith('.png')) {
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
      return void res.writeHead(200, { ...cors, 'content-type': 'image/png' }).end(png);
    }
    if (path.endsWith('.json')) return void res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}');
    const body = pages(path, url);
    if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  };
}

/** The page at www.shop.test/: an allowed script and image, a disallowed script, image and fetch(). */
export function shopPage(url: (h: string, p: string) => string): string {
  return `<!doctype html><html><head><title>shop</title>
<script src="${url(CDN, '/public/app.js')}"></script>
<script src="${url(CDN, '/private/track.js')}"></script>
</head><body><h1>shop</h1>
<img src="${url(CDN, '/public/logo.png')}">
<img src="${url(CDN, '/private/pixel.png')}">
<script>window.fetched = fetch(${JSON.stringify(url(CDN, '/private/data.json'))}).then(r => r.status, e => 'failed')</script>
</body></html>`;
}

export async function startSite(): Promise<Site> {
  let url: (h: string, p: string) => string = () => '';
  const hosts = await startVirtualHosts({
    [WWW]: handler('User-agent: *\nDisallow: /admin\n', (p, u) => (p === '/' ? shopPage(u) : p === '/admin' ? '<p>admin</p>' : `<p>${p}</p>`), (h, p) => url(h, p)),
    [CDN]: handler(CDN_ROBOTS, (p) => `<p>${p}</p>`, (h, p) => url(h, p)),
  });
  url = (h, p) => `${hosts.origin(h)}${p}`;
  return {
    hosts,
    url,
    paths: (host) => hosts.requests(host).map((r) => r.path),
    close: () => hosts.close(),
  };
}
