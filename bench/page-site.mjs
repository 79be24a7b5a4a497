// The page of the browser, Puppeteer and DevTools benches: it pulls 50 subresources (scripts,
// stylesheets, images, fetch() calls) from 5 loopback origins, every response `no-store` so the HTTP
// cache helps no variant. Run as a script it prints the page's URL and serves until killed (the
// DevTools bench serves it from a process of its own: the endpoint's event loop must not also serve
// the page it is gating). Usage: node bench/page-site.mjs, or startSite().
import http from 'node:http';
import { pathToFileURL } from 'node:url';

export const ORIGINS = 5;
export const PER_ORIGIN = 10; // 50 subresources

function listen(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const noStore = { 'cache-control': 'no-store', 'access-control-allow-origin': '*' };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

function asset(req, res) {
  const p = req.url.split('?')[0];
  if (p === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\nAllow: /\n');
  if (p.endsWith('.js')) return res.writeHead(200, { ...noStore, 'content-type': 'text/javascript' }).end('window.n = (window.n || 0) + 1;');
  if (p.endsWith('.css')) return res.writeHead(200, { ...noStore, 'content-type': 'text/css' }).end('p { margin: 0 }');
  if (p.endsWith('.png')) return res.writeHead(200, { ...noStore, 'content-type': 'image/png' }).end(PNG);
  res.writeHead(200, { ...noStore, 'content-type': 'application/json' }).end('{"ok":true}');
}

function pageHtml(origins) {
  const tags = [];
  origins.forEach((o, i) => {
    for (let k = 0; k < PER_ORIGIN; k++) {
      const u = `${o}/r/${i}-${k}`;
      if (k % 4 === 0) tags.push(`<script src="${u}.js"></script>`);
      else if (k % 4 === 1) tags.push(`<link rel="stylesheet" href="${u}.css">`);
      else if (k % 4 === 2) tags.push(`<img src="${u}.png">`);
      else tags.push(`<script>(window.f = window.f || []).push(fetch(${JSON.stringify(u + '.json')}).then((r) => r.text()))</script>`);
    }
  });
  return `<!doctype html><html><head><title>bench</title>${tags.join('\n')}</head><body><p>bench</p></body></html>`;
}

/** Starts the site's servers in this process: its page's URL, and a close(). */
export async function startSite() {
  const assetServers = await Promise.all(Array.from({ length: ORIGINS }, () => listen(asset)));
  const origins = assetServers.map((s) => `http://127.0.0.1:${s.address().port}`);
  const html = pageHtml(origins);
  const pageServer = await listen((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    res.writeHead(200, { ...noStore, 'content-type': 'text/html' }).end(html);
  });
  return { pageUrl: `http://127.0.0.1:${pageServer.address().port}/`, close: () => [...assetServers, pageServer].forEach((s) => s.close()) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log((await startSite()).pageUrl);
