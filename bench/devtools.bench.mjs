// DevTools endpoint bench (`robots-gate browser`): the load time of a page that pulls 50
// subresources (scripts, stylesheets, images, fetch() calls) from 5 origins, driven by the same
// chrome-remote-interface client in three browsers launched alike (src/browser/launch.ts flags):
//   ungated         Chromium's own DevTools port, no gate, no proxy
//   proxy, no gate  the endpoint's pipe, session multiplexing and WebSocket side, without the gate:
//                   what the proxying itself costs
//   pause, no gate  the endpoint with a stand-in gate that allows everything at once: each request
//                   still paused over the gate's session; the floor of deciding before sending
//   endpoint        DevToolsEndpoint as `robots-gate browser` runs it, robots.txt caches warm
// The site runs in a process of its own (bench/page-site.mjs): served from this one, the
// endpoint's pauses waited behind the serving of the very page they gate, which no deployment does.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import CDP from 'chrome-remote-interface';
import { RobotsGate } from '../dist/index.js';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '../dist/browser/index.js';
import { DevToolsEndpoint } from '../dist/devtools/index.js';
import { ORIGINS, PER_ORIGIN } from './page-site.mjs';
// Internal modules: the proxy without the gate is measured over the very pieces the endpoint uses.
import { Chromium } from '../dist/devtools/chromium.js';
import { Client } from '../dist/devtools/client.js';
import { HttpSide } from '../dist/devtools/http-server.js';
import { Upstream } from '../dist/devtools/upstream.js';

const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const ROUNDS = 40;

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
  // Target.createTarget as Chromium answers it, with nothing held.
  const createTarget = (params, sessionId) => new Promise((resolve) => upstream.forward({ method: 'Target.createTarget', params, ...(sessionId ? { sessionId } : {}) }, resolve));
  const side = new HttpSide({
    port: 0,
    token: 'bench',
    upstream,
    createTarget,
    protocol: async () => ({}),
    connect: (ws, targetId) => {
      const client = new Client({ send: (t) => ws.send(t), close: (c, r) => ws.close(c, r) }, upstream, domain, new Set(), createTarget);
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

/** Chromium's own Fetch pause with no endpoint at all: `driver(wsUrl)`'s page, with a second
 *  DevTools client on the same port that pauses every request of every page (Fetch.enable on each
 *  page target, auto-attached) and continues it at once. What any DevTools-based gate pays per
 *  request before it decides anything: the floor under 'pause, no gate'. */
async function rawPause(wsUrl) {
  const client = await CDP({ target: wsUrl, local: true });
  client.paused = 0;
  client.on('event', (m) => {
    if (m.method === 'Fetch.requestPaused') client.paused++;
    if (m.method === 'Fetch.requestPaused') void client.send('Fetch.continueRequest', { requestId: m.params.requestId }, m.sessionId).catch(() => {});
    if (m.method === 'Target.attachedToTarget') {
      const { sessionId, targetInfo } = m.params;
      void (async () => {
        if (targetInfo.type === 'page' || targetInfo.type === 'iframe') await client.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }, sessionId).catch(() => {});
        await client.send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
      })();
    }
  });
  await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  await client.send('Target.setDiscoverTargets', { discover: true });
  // Pages created after this are attached by the browser-level auto-attach (Chromium 156 attaches
  // new page targets to a browser session that asked for it).
  return client;
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
  const site = spawn(process.execPath, [fileURLToPath(new URL('./page-site.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pageUrl = await new Promise((resolve, reject) => {
    site.stdout.once('data', (d) => resolve(String(d).trim()));
    site.once('exit', (code) => reject(new Error(`bench/page-site.mjs exited (${code})`)));
  });
  // Each variant loads one page over and over: what is measured is gating (the navigation's slot
  // taken and given back included), not the host's interval, so the floor is off.
  const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
  // Allows everything at once, without a robots.txt: the pause alone (answered from peek in the
  // handler of the pause, as the real gate answers a warm origin).
  const allowed = (url) => ({ url, allowed: true, reason: 'no-matching-rule', rule: null, group: null, overridden: false });
  const allowAll = { userAgent: UA, peek: allowed, check: async (url) => allowed(url) };
  const [plain, plain2, proxy, floor, endpoint] = await Promise.all([
    plainChromium(),
    plainChromium(),
    proxyOnly(),
    DevToolsEndpoint.start({ gate: allowAll, port: 0 }),
    DevToolsEndpoint.start({ gate, port: 0 }),
  ]);
  const drivers = {};
  const cleanups = [];
  try {
    drivers.ungated = await driver(plain.wsUrl);
    const pauser = await rawPause(plain2.wsUrl);
    cleanups.push(() => pauser.close());
    drivers["Chromium's pause alone"] = await driver(plain2.wsUrl);
    drivers['proxy, no gate'] = await driver(proxy.wsUrl);
    drivers['pause, no gate'] = await driver(floor.webSocketDebuggerUrl);
    drivers['endpoint (warm robots.txt)'] = await driver(endpoint.webSocketDebuggerUrl);
    const times = {};
    // Ratios on this shared machine move with its load: printed beside them.
    const loadAtStart = os.loadavg()[0];
    for (const [name, d] of Object.entries(drivers)) {
      times[name] = [];
      await d.load(pageUrl); // warm-up: JIT, connections, and the gate's robots.txt cache
    }
    // Interleaved rounds, each starting one variant further on (no variant always runs first or
    // right after another); the ratio is the median of each round's own ratio, which cancels most drift.
    const order = Object.entries(drivers);
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < order.length; k++) {
        const [name, d] = order[(r + k) % order.length];
        times[name].push(await d.load(pageUrl));
      }
    }
    const loadAtEnd = os.loadavg()[0];
    // Each load pauses the page and its 50 subresources: fewer would mean the pauser missed the page.
    const pausedPerLoad = pauser.paused / (ROUNDS + 1);
    const paired = (name, by) => median(times[name].map((t, i) => t / times[by][i]));
    console.log(`Page with ${ORIGINS * PER_ORIGIN} subresources over ${ORIGINS} origins, driven over DevTools (chrome-remote-interface), ${ROUNDS} loads each; load average ${loadAtStart.toFixed(1)} at the start, ${loadAtEnd.toFixed(1)} at the end.\n`);
    console.log('| variant | median load (ms) | p90 (ms) | ratio to ungated (median of rounds) |');
    console.log('| --- | ---: | ---: | ---: |');
    for (const [name, t] of Object.entries(times)) console.log(`| ${name} | ${median(t).toFixed(1)} | ${p90(t).toFixed(1)} | ${paired(name, 'ungated').toFixed(2)} |`);
    console.log(`\n"Chromium's pause alone" paused ${pausedPerLoad.toFixed(1)} requests per load (the page and its ${ORIGINS * PER_ORIGIN} subresources).`);
    console.log("\nTarget: the endpoint under 1.2 × ungated. 'proxy, no gate' is the proxying itself (Chromium on a");
    console.log("pipe, the session multiplexing, the WebSocket side); 'pause, no gate' adds the gate's session pausing");
    console.log("each request (Fetch domain) and letting it go at once; the endpoint adds the decisions themselves.");
    console.log("\"Chromium's pause alone\" is the same pause with no endpoint: a second DevTools client on an ungated");
    console.log('Chromium continuing every paused request at once, the floor of any gate that decides over DevTools.');
  } finally {
    for (const d of Object.values(drivers)) await d.close().catch(() => {});
    for (const c of cleanups) await c().catch(() => {});
    await Promise.all([plain.close(), plain2.close(), proxy.close(), floor.close(), endpoint.close()]);
    await gate.close();
    site.kill();
  }
}
