// A broad crawl's cache: heap per cached origin in a RobotsGate for 10,000 origins (real files from
// the corpus, several origins per file, each with its own copy of the text), against robots-parser
// holding the same files, and warm gate.check() over 1,000 origins. The gate's store is filled
// directly (as a shared store hands a gate its records), so no network is involved.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import robotsParser from 'robots-parser';
import { MemoryPolicyStore, RobotsGate } from '../dist/index.js';
import { SHARED_CORPUS } from './corpus/shared.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const here = path.dirname(fileURLToPath(import.meta.url));
const shared = SHARED_CORPUS;
const dir = existsSync(shared) ? shared : path.join(here, 'corpus', 'robots');
const ORIGINS = 10_000;
const WARM_ORIGINS = 1_000;
const UA = 'Googlebot/2.1 (+http://www.google.com/bot.html)';
const MAX_FILE = 512_000;

const heap = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: n >= 100 ? 0 : 2 });

function files() {
  return readdirSync(dir).filter((f) => f.endsWith('.txt')).sort().map((f) => readFileSync(path.join(dir, f))).filter((b) => b.length > 0 && b.length <= MAX_FILE);
}

/** A fresh copy of the text per origin, as a crawl holds one per fetched response. */
const own = (bytes) => bytes.toString('utf8');

function record(i, bytes) {
  const origin = `https://h${i}.example`;
  const now = Date.now();
  return {
    origin, robotsUrl: `${origin}/robots.txt`, finalUrl: `${origin}/robots.txt`, status: 200, kind: 'parsed',
    body: own(bytes), sha256: createHash('sha256').update(bytes).digest('hex'), fetchedAt: now, expiresAt: now + 86_400_000,
  };
}

export async function run() {
  const pool = files();
  const pick = Array.from({ length: ORIGINS }, (_, i) => pool[(i * 7919) % pool.length]);
  const bodyBytes = pick.reduce((s, b) => s + b.length, 0);
  const small = pick.map((b, i) => (b.length < 1024 ? i : -1)).filter((i) => i >= 0);

  // The gate with its store (the text lives there): everything a gate holds per origin.
  let h0 = heap();
  const store = new MemoryPolicyStore({ maxOrigins: ORIGINS });
  for (let i = 0; i < ORIGINS; i++) await store.set(record(i, pick[i]));
  const hStore = heap();
  const gate = new RobotsGate({ userAgent: UA, store, maxOrigins: ORIGINS });
  for (let i = 0; i < ORIGINS; i++) await gate.check(`https://h${i}.example/`);
  const hGate = heap();
  const storePer = (hStore - h0) / ORIGINS;
  const entryPer = (hGate - hStore) / ORIGINS;

  // Entries for small files alone (< 1 KiB), in a second gate over the same store.
  const gateSmall = new RobotsGate({ userAgent: UA, store, maxOrigins: ORIGINS });
  const hs0 = heap();
  for (const i of small) await gateSmall.check(`https://h${i}.example/`);
  const smallPer = (heap() - hs0) / small.length;
  const smallBytes = small.reduce((s, i) => s + pick[i].length, 0) / small.length;

  // robots-parser holding the same files, each from its own copy of the text.
  h0 = heap();
  const peers = [];
  for (let i = 0; i < ORIGINS; i++) {
    const p = robotsParser(`https://h${i}.example/robots.txt`, own(pick[i]));
    p.isAllowed(`https://h${i}.example/`, UA);
    peers.push(p);
  }
  const peerPer = (heap() - h0) / ORIGINS;

  // Warm checks over 1,000 origins, round robin, each awaited, against robots-parser's isAllowed.
  const urls = [];
  for (let i = 0; i < WARM_ORIGINS; i++) for (const p of ['/', '/search?q=x', '/a/b/c.html', '/images/x.png']) urls.push(`https://h${i}.example${p}`);
  const timeGate = async (rounds) => { const t = performance.now(); for (let r = 0; r < rounds; r++) for (const u of urls) await gate.check(u); return ((performance.now() - t) * 1000) / (rounds * urls.length); };
  const timePeer = (rounds) => { let sink = 0; const t = performance.now(); for (let r = 0; r < rounds; r++) for (let k = 0; k < urls.length; k++) if (peers[k >> 2].isAllowed(urls[k], UA)) sink++; if (sink < 0) console.log(sink); return ((performance.now() - t) * 1000) / (rounds * urls.length); };
  await timeGate(20); timePeer(5);
  const g = [], p = [];
  for (let b = 0; b < 7; b++) { g.push(await timeGate(10)); p.push(timePeer(3)); }
  g.sort((a, b) => a - b); p.sort((a, b) => a - b);

  const avg = bodyBytes / ORIGINS;
  console.log(`${ORIGINS.toLocaleString('en-US')} origins over ${pool.length} real files (${path.relative(process.cwd(), dir)}), mean body ${fmt(avg)} bytes; User-Agent Googlebot.\n`);
  console.log('| measure | robots-gate | robots-parser 3.0.1 | ratio | target |');
  console.log('| --- | ---: | ---: | ---: | --- |');
  console.log(`| heap per cached origin, gate + its store (text kept once, in the store) | ${fmt((storePer + entryPer) / 1024)} KB = ${((storePer + entryPer) / avg).toFixed(2)}× the body | ${fmt(peerPer / 1024)} KB = ${(peerPer / avg).toFixed(2)}× | ${((storePer + entryPer) / peerPer).toFixed(2)} | ≤ 2× body |`);
  console.log(`| of which the gate's entry (rules that apply, stamp, crawl-delay) | ${fmt(entryPer / 1024)} KB = ${(entryPer / avg).toFixed(2)}× the body | | | |`);
  console.log(`| gate entry for a file under 1 KiB (${small.length.toLocaleString('en-US')} origins, mean ${fmt(smallBytes)} bytes) | ${fmt(smallPer)} bytes | | | ≤ 2 KB |`);
  console.log(`| warm \`gate.check\`, ${WARM_ORIGINS.toLocaleString('en-US')} origins round robin, µs per call (median of 7) | ${g[3].toFixed(3)} | ${p[3].toFixed(3)} (isAllowed) | ${(p[3] / g[3]).toFixed(1)}× faster | < 1 µs |`);
  await gate.close();
  await gateSmall.close();
}
