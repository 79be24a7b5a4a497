// A `blob:` shared worker through the endpoint: its script comes at once, so Chromium can start it
// with URL loaders made before the gate's session on it intercepts, and its first fetch() left
// ungated in most runs. The browser-level session pauses every request while a shared worker
// lives; the disallowed URL must never reach the server, in any of several pages.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { DevToolsEndpoint } from '../../src/devtools/endpoint.js';
import type { TargetRequest } from '../../src/devtools/target-watch.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { connect, openPage } from './harness.js';

const HOST = 'www.workers.test';
// The worker fetches a disallowed URL as soon as a page connects; the page also fetches an allowed
// one while the worker lives (decided by the page's session and again at the browser level).
const PAGE = `<!doctype html><script>
window.result = new Promise((resolve) => {
  const src = 'onconnect = (e) => { const port = e.ports[0]; fetch(' + JSON.stringify(location.origin + '/private/blob.json?' + Math.random()) + ')' +
    '.then((r) => port.postMessage("status " + r.status), () => port.postMessage("failed")); };';
  const worker = new SharedWorker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  worker.port.onmessage = (e) => fetch('/public/after.json').then((r) => r.status, () => 'failed').then((s) => resolve([e.data, s]));
  worker.port.start();
});
</script>`;

let hosts: VirtualHosts;
let gate: RobotsGate;
let endpoint: DevToolsEndpoint;
const decided: TargetRequest[] = [];

beforeAll(async () => {
  hosts = await startVirtualHosts({
    [HOST]: (req, res) => {
      const p = (req.url ?? '/').split('?')[0];
      if (p === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      if (p === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    },
  });
  gate = new RobotsGate({ userAgent: 'WorkerBot/1.0', resolve: hosts.resolve });
  endpoint = await DevToolsEndpoint.start({ gate, port: 0, resolve: hosts.resolve });
  endpoint.on('request', (e) => decided.push(e));
});
afterAll(async () => {
  await endpoint?.close();
  await gate?.close();
  await hosts?.close();
});

test("a blob: shared worker's fetch() of a disallowed URL never reaches the server, page after page", async () => {
  const c = await connect(endpoint.webSocketDebuggerUrl);
  try {
    await c.send('Robots.enable');
    for (let i = 0; i < 6; i++) {
      const { sessionId, targetId } = await openPage(c, false);
      c.events.length = 0; // about:blank's own load event is not this one
      await c.send('Page.navigate', { url: `${hosts.origin(HOST)}/` }, sessionId);
      await c.waitFor('Page.loadEventFired');
      const r = await c.send('Runtime.evaluate', { expression: 'window.result', awaitPromise: true, returnByValue: true }, sessionId);
      expect(r.result.value, `page ${i}`).toEqual(['failed', 200]);
      await c.send('Target.closeTarget', { targetId });
    }
  } finally {
    await c.close();
  }
  const paths = hosts.requests(HOST).map((r) => r.path.split('?')[0]);
  expect(paths.filter((p) => p.startsWith('/private/'))).toEqual([]);
  expect(paths.filter((p) => p === '/public/after.json')).toHaveLength(6);
  const blocked = decided.filter((d) => d.url.includes('/private/blob.json'));
  expect(blocked).toHaveLength(6);
  for (const b of blocked) expect(b.decision).toMatchObject({ allowed: false, rule: { line: 2 } });
  // Decided by the page's session and again at the browser level, recorded once.
  expect(decided.filter((d) => d.url.endsWith('/public/after.json'))).toHaveLength(6);
}, 90_000);
