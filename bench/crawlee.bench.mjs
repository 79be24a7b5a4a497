// Crawlee bench, two parts, each against its peer in the same run:
// 1. A CheerioCrawler over 2,000 URLs on 200 loopback hosts (a server per host, 20 % of the URLs
//    disallowed): gated by robots-gate/crawlee (memory limiter, 0 ms floor, so only the
//    one-request-per-host rule and the gate's cost remain) against Crawlee's own
//    `respectRobotsTxtFile`. Time, and what the servers received (robots.txt and page requests).
// 2. A puppeteer-core page of 50 subresources over 5 origins: gated by robots-gate/puppeteer
//    (warm robots cache) against ungated, interleaved loads in one browser each.
import http from 'node:http';
import { existsSync } from 'node:fs';
import { CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import puppeteer from 'puppeteer-core';
import { RobotsGate } from '../dist/index.js';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '../dist/browser/index.js';
import { gateCrawler } from '../dist/crawlee/index.js';
import { gatePage } from '../dist/puppeteer/index.js';
import { ORIGINS as PAGE_ORIGINS, PER_ORIGIN, startSite } from './page-site.mjs';

const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const HOSTS = 200;
const PER_HOST = 10;
const CONCURRENCY = 50;
const ROUNDS = 30;

log.setLevel(LogLevel.OFF);

function listen(handler) {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const close = (servers) => Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections?.(), s.close(r)))));

async function hosts(counts, order) {
  const servers = await Promise.all(
    Array.from({ length: HOSTS }, () =>
      listen((req, res) => {
        if (req.url === '/robots.txt') {
          counts.robots++;
          return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
        }
        counts.pages++;
        if (req.url.startsWith('/private/')) counts.disallowed++;
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${req.url}</title><p>page</p>`);
      }),
    ),
  );
  const url = (s, i) => `http://127.0.0.1:${s.address().port}/${i % 5 === 0 ? 'private' : 'public'}/${i}.html`;
  // 'round robin' over the hosts (a broad crawl's frontier), or 'by host' (a site at a time).
  const urls =
    order === 'by host'
      ? servers.flatMap((s) => Array.from({ length: PER_HOST }, (_, i) => url(s, i)))
      : Array.from({ length: PER_HOST }, (_, i) => servers.map((s) => url(s, i))).flat();
  return { servers, urls };
}

async function crawl(gated, order) {
  const counts = { robots: 0, pages: 0, disallowed: 0 };
  const { servers, urls } = await hosts(counts, order);
  let handled = 0;
  // The gate's own floor is the adapter's (0 ms): at its 2 s default the robots.txt request's
  // lease, remembered by the limiter, held each host's first page 2 s (162 s for the by-host order).
  const gate = gated ? new RobotsGate({ userAgent: UA, minIntervalMs: 0 }) : null;
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: CONCURRENCY,
      minConcurrency: CONCURRENCY,
      maxRequestRetries: 0,
      requestHandler: async () => void handled++,
      ...(gated ? {} : { respectRobotsTxtFile: { userAgent: 'BenchBot' } }),
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  if (gate) gateCrawler(crawler, gate, { minIntervalMs: 0, jitter: 0 });
  const t0 = performance.now();
  await crawler.run(urls);
  const ms = performance.now() - t0;
  await gate?.close();
  await close(servers);
  return { ms, handled, ...counts };
}

async function puppeteerPage() {
  const site = await startSite();
  const url = site.pageUrl;
  const launch = () => puppeteer.launch({ executablePath: DEFAULT_CHROMIUM, args: [...CHROMIUM_ARGS] });
  const [plain, gatedBrowser, pausedBrowser] = await Promise.all([launch(), launch(), launch()]);
  // Each variant loads one page over and over: what is measured is gating (the navigation's slot
  // taken and given back included), not the host's interval, so the floor is off.
  const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
  try {
    const ungatedPage = await plain.newPage();
    const gatedPage = await gatedBrowser.newPage();
    await gatePage(gatedPage, gate);
    // The floor of any pre-send check over Puppeteer: every request paused over a DevTools
    // session of Puppeteer's and let go at once, no decision.
    const pausedPage = await pausedBrowser.newPage();
    const session = await pausedPage.createCDPSession();
    session.on('Fetch.requestPaused', (e) => void session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {}));
    await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    const load = async (page) => {
      const t0 = performance.now();
      await page.goto(url, { waitUntil: 'load' });
      await page.evaluate(() => Promise.all(window.f ?? []));
      return performance.now() - t0;
    };
    await load(ungatedPage);
    await load(gatedPage); // warms the gate's robots cache
    await load(pausedPage);
    const times = { ungated: [], gated: [], paused: [] };
    for (let r = 0; r < ROUNDS; r++) {
      times.ungated.push(await load(ungatedPage));
      times.paused.push(await load(pausedPage));
      times.gated.push(await load(gatedPage));
    }
    return { ungated: median(times.ungated), gated: median(times.gated), paused: median(times.paused) };
  } finally {
    await Promise.all([plain.close(), gatedBrowser.close(), pausedBrowser.close()]);
    await gate.close();
    site.close();
  }
}

export async function run() {
  console.log(`CheerioCrawler, ${HOSTS * PER_HOST} URLs on ${HOSTS} loopback hosts (${HOSTS * PER_HOST / 5} disallowed), maxConcurrency ${CONCURRENCY}:\n`);
  console.log('| URL order | variant | time | URLs/s | robots.txt requests | page requests | disallowed sent | handled |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  const ratios = [];
  for (const order of ['round robin', 'by host']) {
    const own = await crawl(false, order);
    const gated = await crawl(true, order);
    for (const [name, r] of [['Crawlee respectRobotsTxtFile', own], ['robots-gate/crawlee (0 ms floor)', gated]]) {
      console.log(`| ${order} | ${name} | ${(r.ms / 1000).toFixed(2)} s | ${Math.round((HOSTS * PER_HOST) / (r.ms / 1000))} | ${r.robots} | ${r.pages} | ${r.disallowed} | ${r.handled} |`);
    }
    ratios.push(`${order}: ${(gated.ms / own.ms).toFixed(2)}`);
  }
  console.log(`\ntime ratio gated / Crawlee's own: ${ratios.join('; ')}`);
  console.log('(gated: one request in flight per host, as every door of robots-gate keeps; Crawlee\'s own sends a host\'s URLs at once)');

  if (!existsSync(DEFAULT_CHROMIUM)) {
    console.log(`\npuppeteer part skipped: no Chromium at ${DEFAULT_CHROMIUM}`);
    return;
  }
  const p = await puppeteerPage();
  console.log(`\npuppeteer-core page, ${PAGE_ORIGINS * PER_ORIGIN} subresources over ${PAGE_ORIGINS} origins, median of ${ROUNDS} interleaved loads:\n`);
  console.log('| variant | load (median) |');
  console.log('| --- | --- |');
  console.log(`| ungated | ${p.ungated.toFixed(1)} ms |`);
  console.log(`| DevTools pause over Puppeteer's session, no gate (the floor) | ${p.paused.toFixed(1)} ms |`);
  console.log(`| robots-gate/puppeteer gatePage | ${p.gated.toFixed(1)} ms |`);
  console.log(`\nratio gated / ungated: ${(p.gated / p.ungated).toFixed(2)}; pause alone / ungated: ${(p.paused / p.ungated).toFixed(2)}`);
}
