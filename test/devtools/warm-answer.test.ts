// A paused request of a warm origin is answered from gate.peek in the handler of its pause, and
// its events (the `request` event, Robots.requestBlocked, audit rows) come after the answer has
// gone to the browser: each request waits in Chromium until then, so nothing else runs first.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { DevToolsEndpoint, type EndpointGate } from '../../src/devtools/endpoint.js';
import type { TargetRequest } from '../../src/devtools/target-watch.js';
import { CDN, WWW, startSite, UA, type Site } from './site.js';
import { connect, openPage, sleep } from './harness.js';

let site: Site;
let gate: RobotsGate;
beforeAll(async () => {
  site = await startSite();
  gate = new RobotsGate({ userAgent: UA, resolve: site.hosts.resolve });
});
afterAll(async () => {
  await gate?.close();
  await site?.close();
});

test('warm origins: every request decided by peek, none waits for check; events after the answer is written', async () => {
  // Both origins warm: peek knows them.
  await gate.check(site.url(WWW, '/'));
  await gate.check(site.url(CDN, '/'));
  const asked: string[] = [];
  // check never settles: a request that waited for it would never leave.
  const held: EndpointGate = { userAgent: gate.userAgent, productToken: gate.productToken, peek: (url) => gate.peek(url), check: (url) => (asked.push(url), new Promise(() => {})) };
  const endpoint = await DevToolsEndpoint.start({ gate: held, port: 0, resolve: site.hosts.resolve });
  // The pipe to the browser: corked while answers of this tick are still queued (chromium.ts).
  const pipe = (endpoint as unknown as { chromium: { child: { stdio: Array<{ writableCorked: number }> } } }).chromium.child.stdio[3]!;
  const seen: Array<{ entry: TargetRequest; corked: number }> = [];
  endpoint.on('request', (entry) => seen.push({ entry, corked: pipe.writableCorked }));
  const c = await connect(endpoint.webSocketDebuggerUrl);
  try {
    const { sessionId } = await openPage(c);
    await c.send('Page.navigate', { url: site.url(WWW, '/') }, sessionId);
    await c.waitFor('Page.loadEventFired');
    const fetched = await c.send('Runtime.evaluate', { expression: 'window.fetched', awaitPromise: true }, sessionId);
    expect(fetched.result.value).toBe('failed');
    await sleep(200);
    expect(site.paths(CDN).sort()).toEqual(['/public/app.js', '/public/logo.png', '/robots.txt']);
    expect(asked).toEqual([]);
    const urls = seen.map((s) => new URL(s.entry.url).pathname).sort();
    expect(urls).toEqual(['/', '/private/data.json', '/private/pixel.png', '/private/track.js', '/public/app.js', '/public/logo.png']);
    expect(seen.filter((s) => s.corked !== 0).map((s) => s.entry.url)).toEqual([]);
  } finally {
    await c.close();
    await endpoint.close();
  }
});
