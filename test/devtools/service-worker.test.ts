// Service workers through the endpoint: the browser process fetches a worker's main script for its
// registration, outside every page's interception; the endpoint's browser-level session decides
// it. A worker's own fetch() is decided over its own session. Served from localhost, a secure
// context (service workers need one).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { DevToolsEndpoint } from '../../src/devtools/endpoint.js';
import type { TargetRequest } from '../../src/devtools/target-watch.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { connect, openPage } from './harness.js';

const SW = `self.addEventListener('message', (e) => e.waitUntil(fetch('/private/sw.json').then((r) => r.status, () => 'failed').then((s) => e.source.postMessage(s))));`;
const register = (script: string) => `<script>window.result = navigator.serviceWorker.register(${JSON.stringify(script)})
  .then(() => navigator.serviceWorker.ready)
  .then((reg) => new Promise((resolve) => { navigator.serviceWorker.onmessage = (e) => resolve(e.data); reg.active.postMessage('go'); }),
        (e) => 'registration failed: ' + e.message)</script>`;

let hosts: VirtualHosts;
let gate: RobotsGate;
let endpoint: DevToolsEndpoint;
const decided: TargetRequest[] = [];

beforeAll(async () => {
  hosts = await startVirtualHosts({
    localhost: (req, res) => {
      const p = req.url ?? '/';
      if (p === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      if (p.endsWith('sw.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(SW);
      if (p === '/allowed.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(register('/sw.js'));
      if (p === '/disallowed.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(register('/private/sw.js'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    },
  });
  gate = new RobotsGate({ userAgent: 'WorkerBot/1.0' });
  endpoint = await DevToolsEndpoint.start({ gate, port: 0 });
  endpoint.on('request', (e) => decided.push(e));
});
afterAll(async () => {
  await endpoint?.close();
  await gate?.close();
  await hosts?.close();
});

async function visit(path: string): Promise<unknown> {
  const c = await connect(endpoint.webSocketDebuggerUrl);
  try {
    const { sessionId } = await openPage(c);
    await c.send('Page.navigate', { url: `${hosts.origin('localhost')}${path}` }, sessionId);
    await c.waitFor('Page.loadEventFired');
    const r = await c.send('Runtime.evaluate', { expression: 'window.result', awaitPromise: true }, sessionId);
    return r.result.value;
  } finally {
    await c.close();
  }
}

test("a disallowed service worker script is never fetched: the registration fails", async () => {
  expect(await visit('/disallowed.html')).toMatch(/^registration failed/);
  expect(hosts.requests('localhost').map((r) => r.path)).not.toContain('/private/sw.js');
  const row = decided.find((d) => d.url.endsWith('/private/sw.js'))!;
  expect(row.decision).toMatchObject({ allowed: false, rule: { line: 2 } });
  expect(decided.filter((d) => d.url.endsWith('/private/sw.js'))).toHaveLength(1);
});

test("an allowed service worker runs, and its own fetch() is gated", async () => {
  expect(await visit('/allowed.html')).toBe('failed');
  const paths = hosts.requests('localhost').map((r) => r.path);
  expect(paths).toContain('/sw.js');
  expect(paths).not.toContain('/private/sw.json');
  expect(decided.filter((d) => d.url.endsWith('/sw.js') && !d.url.includes('/private/'))).toHaveLength(1);
});
