// DevTools endpoint bench (`robots-gate browser`): the load time of a page that pulls 50
// subresources (scripts, stylesheets, images, fetch() calls) from 5 origins, driven by the same
// chrome-remote-interface client in three browsers launched alike (src/browser/launch.ts flags):
//   ungated         Chromium's own DevTools port, no gate, no proxy
//   proxy, no gate  the endpoint's pipe, session multiplexing and WebSocket side, without the gate:
//                   what the proxying itself costs
//   pause, no gate  the endpoint with a stand-in gate that allows everything at once: each request
//                   still paused over the gate's session; the floor of deciding before sending
//   endpoint        DevToolsEndpoint as `robots-gate browser` runs it, robots.txt caches warm
// Loopback servers in this process; responses are `no-store` so the HTTP cache helps no variant.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import CDP from 'chrome-remote-interface';
import { RobotsGate } from '../dist/index.js';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '../dist/browser/index.js';
import { DevToolsEndpoint } from '../dist/devtools/index.js';
// Internal modules: the proxy without the gate is measured over the very pieces the endpoint uses.
import { Chromium } from '../dist/devtools/chromium.js';
import { Client } from '../dist/devtools/client.js';
import { HttpSide } from '../dist/devtools/http-server.js';
import { Upstream } from '../dist/devtools/upstream.js';

const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const ORIGINS = 5;
const PER_ORIGIN = 10; // 50 subresources
const ROUNDS = 40;

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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

/** Chromium with its own DevTools port: the ungated peer. */
async function plainChromium() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-bench-devtools-'));
  const child = spawn(DEFAULT_CHROMIUM, [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${dir}`, `--user-agent=${UA}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wsUrl = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`chromium exited: ${err}`)));
  });
  return {
    wsUrl,
    close: async () => {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The endpoint's proxy over a pipe-driven Chromium, with no gate holding its targets. */
async function proxyOnly() {
  const chromium = await Chromium.start({ userAgent: UA });
  const upstream = new Upstream(chromium);
  const clients = new Set();
  const domain = { handle: async () => ({}) };
  const side = new HttpSide({
    port: 0,
    token: 'bench',
    upstream,
    connect: (ws, targetId) => {
      const client = new Client({ send: (t) => ws.send(t), close: (c, r) => ws.close(c, r) }, upstream, domain, new Set());
      const queued = [];
      let open = false;
      ws.on('message', (d) => (open ? client.onText(String(d)) : queued.push(String(d))));
      ws.on('close', () => void client.close());
      void client.open(targetId).then(() => {
        open = true;
        clients.add(client);
        for (const t of queued.splice(0)) client.onText(t);
      });
    },
  });
  await side.listen();
  return { wsUrl: side.webSocketDebuggerUrl, close: async () => (await side.close(), await chromium.close()) };
}

/** A client on `wsUrl` with one page: `load(url)` navigates and waits for load and every fetch(). */
async function driver(wsUrl) {
  const client = await CDP({ target: wsUrl, local: true });
  const { targetId } = await client.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true });
  await client.send('Page.enable', {}, sessionId);
  let onLoad = null;
  client.on('event', (m) => m.method === 'Page.loadEventFired' && m.sessionId === sessionId && onLoad?.());
  return {
    async load(url) {
      const t0 = performance.now();
      const loaded = new Promise((r) => (onLoad = r));
      await client.send('Page.navigate', { url }, sessionId);
      await loaded;
      await client.send('Runtime.evaluate', { expression: 'Promise.all(window.f)', awaitPromise: true }, sessionId);
      return performance.now() - t0;
    },
    close: () => client.close(),
  };
}

export async function run() {
  if (!existsSync(DEFAULT_CHROMIUM)) {
    console.log(`skipped: no Chromium at ${DEFAULT_CHROMIUM} (apt-get install chromium)`);
    return;
  }
  const assetServers = await Promise.all(Array.from({ length: ORIGINS }, () => listen(asset)));
  const origins = assetServers.map((s) => `http://127.0.0.1:${s.address().port}`);
  const html = pageHtml(origins);
  const pageServer = await listen((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    res.writeHead(200, { ...noStore, 'content-type': 'text/html' }).end(html);
  });
  const pageUrl = `http://127.0.0.1:${pageServer.address().port}/`;
  // Each variant loads one page over and over: what is measured is gating (the navigation's slot
  // taken and given back included), not the host's interval, so the floor is off.
  const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
  // Allows everything at once, without a robots.txt: the pause alone.
  const allowAll = { userAgent: UA, check: async (url) => ({ url, allowed: true, reason: 'no-matching-rule', rule: null, group: null, overridden: false }) };
  const [plain, proxy, floor, endpoint] = await Promise.all([
    plainChromium(),
    proxyOnly(),
    DevToolsEndpoint.start({ gate: allowAll, port: 0 }),
    DevToolsEndpoint.start({ gate, port: 0 }),
  ]);
  const drivers = {};
  try {
    drivers.ungated = await driver(plain.wsUrl);
    drivers['proxy, no gate'] = await driver(proxy.wsUrl);
    drivers['pause, no gate'] = await driver(floor.webSocketDebuggerUrl);
    drivers['endpoint (warm robots.txt)'] = await driver(endpoint.webSocketDebuggerUrl);
    const times = {};
    for (const [name, d] of Object.entries(drivers)) {
      times[name] = [];
      await d.load(pageUrl); // warm-up: JIT, connections, and the gate's robots.txt cache
    }
    // Interleaved rounds; the ratio is the median of each round's own ratio, which cancels most drift.
    for (let r = 0; r < ROUNDS; r++) for (const [name, d] of Object.entries(drivers)) times[name].push(await d.load(pageUrl));
    const paired = (name, by) => median(times[name].map((t, i) => t / times[by][i]));
    console.log(`Page with ${ORIGINS * PER_ORIGIN} subresources over ${ORIGINS} origins, driven over DevTools (chrome-remote-interface), ${ROUNDS} loads each.\n`);
    console.log('| variant | median load (ms) | p90 (ms) | ratio to ungated (median of rounds) |');
    console.log('| --- | ---: | ---: | ---: |');
    for (const [name, t] of Object.entries(times)) console.log(`| ${name} | ${median(t).toFixed(1)} | ${p90(t).toFixed(1)} | ${paired(name, 'ungated').toFixed(2)} |`);
    console.log("\nTarget: the endpoint under 1.2 × ungated. 'proxy, no gate' is the proxying itself (Chromium on a");
    console.log("pipe, the session multiplexing, the WebSocket side); 'pause, no gate' adds the gate's session pausing");
    console.log('each request (Fetch domain) and letting it go at once; the endpoint adds the decisions themselves.');
  } finally {
    for (const d of Object.values(drivers)) await d.close().catch(() => {});
    await Promise.all([plain.close(), proxy.close(), floor.close(), endpoint.close()]);
    await gate.close();
    for (const s of [...assetServers, pageServer]) s.close();
  }
}
