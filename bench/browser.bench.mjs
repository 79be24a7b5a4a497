// Browser bench: load time of a page that pulls 50 subresources (scripts, stylesheets, images,
// fetch() calls) from 5 origins, ungated against gatePage with a warm robots.txt cache; every
// browser comes from launchChromium (same flags). For comparison: every request routed through
// Playwright (page.route, continued at once), which gatePage does not use; and every request
// paused over the same kind of DevTools session gatePage uses and let go at once, the floor of any
// gating that decides before a request leaves. The page (bench/page-site.mjs) is served from this
// process; its responses are `no-store` so no variant is helped by the HTTP cache (routing turns it off).
import { existsSync } from 'node:fs';
import { RobotsGate } from '../dist/index.js';
import { gatePage, launchChromium, DEFAULT_CHROMIUM } from '../dist/browser/index.js';
// Internal modules: the floor is measured over the very session gatePage uses.
import { directPageChannel } from '../dist/browser/direct-session.js';
import { sessionChannel } from '../dist/browser/channel.js';
import { ORIGINS, PER_ORIGIN, startSite } from './page-site.mjs';

const UA = 'BenchBot/1.0 (+https://bench.example/bot)';
const ROUNDS = 40;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

/** One page load until `load` and every fetch() answered (ms). */
async function load(page, url) {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.evaluate(() => Promise.all(window.f));
  return performance.now() - t0;
}

export async function run() {
  if (!existsSync(DEFAULT_CHROMIUM)) {
    console.log(`skipped: no Chromium at ${DEFAULT_CHROMIUM} (apt-get install chromium)`);
    return;
  }
  const site = await startSite();
  const { pageUrl } = site;
  // The gated page gets a browser of its own: gatePage's browser-level session pauses every
  // document of its browser (documents only), which would tax the other variants' page loads too.
  const [browser, gatedBrowser] = await Promise.all([launchChromium(), launchChromium()]);
  // Each variant loads one page over and over: what is measured is gating (the navigation's slot
  // taken and given back included), not the host's interval, so the floor is off.
  const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
  try {
    const variants = {};
    const context = async (b = browser) => b.newContext({ userAgent: UA, serviceWorkers: 'block' });
    const ungated = await (await context()).newPage();
    const routed = await (await context()).newPage();
    await routed.route('**/*', (route) => route.continue());
    // The floor of gating over DevTools: every request paused and let go at once, no decision.
    // Over the same kind of session gatePage uses (Playwright's server side when it runs in this process).
    const paused = await (await context(gatedBrowser)).newPage();
    const session = (await directPageChannel(paused)) ?? sessionChannel(await paused.context().newCDPSession(paused));
    session.on('Fetch.requestPaused', (e) => void session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {}));
    await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    const gated = await (await context(gatedBrowser)).newPage();
    await gatePage(gated, gate);
    const pages = { ungated, 'routed, no gate': routed, 'DevTools pause, no gate': paused, 'gatePage (warm robots.txt)': gated };
    for (const [name, page] of Object.entries(pages)) {
      variants[name] = [];
      await load(page, pageUrl); // warm-up: JIT, connections, and the gate's robots.txt cache
    }
    // Interleaved rounds, so drift on a shared machine hits every variant alike; the ratio is the
    // median of each round's own ratio (loads seconds apart), which cancels most of that drift.
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, page] of Object.entries(pages)) variants[name].push(await load(page, pageUrl));
    }
    const paired = (name, by) => median(variants[name].map((t, i) => t / variants[by][i]));
    console.log(`Page with ${ORIGINS * PER_ORIGIN} subresources over ${ORIGINS} origins (scripts, stylesheets, images, fetch), ${ROUNDS} loads each, Chromium ${browser.version()}.\n`);
    console.log('| variant | median load (ms) | p90 (ms) | ratio to ungated (median of rounds) | ratio to routed, no gate |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const [name, times] of Object.entries(variants)) {
      console.log(`| ${name} | ${median(times).toFixed(1)} | ${p90(times).toFixed(1)} | ${paired(name, 'ungated').toFixed(2)} | ${paired(name, 'routed, no gate').toFixed(2)} |`);
    }
    console.log("\nTarget: gatePage under 1.2 × ungated. 'routed, no gate' is Playwright's request interception alone");
    console.log('(page.route continuing everything), which gatePage does not use: it pauses each request over a');
    console.log("DevTools session of its own (Fetch domain, on Playwright's server side) and decides it there, redirect");
    console.log("hops included. 'DevTools pause, no gate' is that pause alone (continued at once): the floor of any");
    console.log('gating that decides each request before it leaves Chromium.');
  } finally {
    await Promise.all([browser.close(), gatedBrowser.close()]);
    await gate.close();
    site.close();
  }
}
