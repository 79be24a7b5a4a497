// A simulated broad crawl: 1,000,000 URLs over 100,000 hosts through the MemoryFrontier and a real
// RobotsGate, on a simulated clock (2 s floor, 16 in flight, 50 ms a request), every URL decided by
// gate.check. robots.txt responses are in-process: each host's record (a real file from the corpus,
// under 2 KB, as most are) is handed to the gate's store as a fetch would have left it. Reported:
// decisions/s and peak RSS and heap, against the frontier alone on the same list in the same run.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryPolicyStore, RobotsGate } from '../dist/index.js';
import { MemoryFrontier } from '../dist/politeness/index.js';
import { SHARED_CORPUS } from './corpus/shared.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const shared = SHARED_CORPUS;
const dir = existsSync(shared) ? shared : path.join(here, 'corpus', 'robots');
const HOSTS = 100_000;
const PER_HOST = 10;
const MB = (b) => Math.round(b / 1024 / 1024).toLocaleString('en-US');

function peakSampler() {
  let rss = 0, heap = 0;
  const sample = () => { const m = process.memoryUsage(); rss = Math.max(rss, m.rss); heap = Math.max(heap, m.heapUsed + m.external); };
  const t = setInterval(sample, 20);
  return { sample, stop: () => (clearInterval(t), sample(), { rss, heap }) };
}

async function drive(f, decide) {
  const inflight = [];
  let now = 0;
  let decisions = 0;
  let allowed = 0;
  const t0 = performance.now();
  for (;;) {
    const r = f.takeSync(now);
    if (r.kind === 'item') {
      decisions++;
      if (await decide(r.item.url)) allowed++;
      inflight.push([now + 50, r]);
      continue;
    }
    if (r.kind === 'drained') break;
    now = Math.max(now, Math.min(inflight.length ? inflight[0][0] : Infinity, r.retryAt ?? Infinity));
    while (inflight.length && inflight[0][0] <= now) f.release(inflight.shift()[1], now, undefined, false);
  }
  return { decisions, allowed, ms: performance.now() - t0 };
}

export async function run() {
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt')).sort().map((f) => readFileSync(path.join(dir, f))).filter((b) => b.length > 0 && b.length < 2048);
  const list = [];
  for (let j = 0; j < PER_HOST; j++) for (let i = 0; i < HOSTS; i++) list.push({ url: `https://h${i}.example/p/${j}?q=${j}`, host: `h${i}.example` });

  // The frontier alone (no gate).
  const f0 = new MemoryFrontier({ minIntervalMs: 2000, concurrency: 16 });
  f0.addSync(list);
  const alone = await drive(f0, () => true);

  const peak = peakSampler();
  const store = new MemoryPolicyStore({ maxOrigins: HOSTS });
  const now = Date.now();
  for (let i = 0; i < HOSTS; i++) {
    const bytes = files[i % files.length];
    const origin = `https://h${i}.example`;
    await store.set({ origin, robotsUrl: `${origin}/robots.txt`, finalUrl: `${origin}/robots.txt`, status: 200, kind: 'parsed',
      body: bytes.toString('utf8'), sha256: createHash('sha256').update(bytes).digest('hex'), fetchedAt: now, expiresAt: now + 86_400_000 });
  }
  const gate = new RobotsGate({ userAgent: 'BenchBot/1.0 (+https://bench.example/bot)', store, maxOrigins: HOSTS });
  const f = new MemoryFrontier({ minIntervalMs: 2000, concurrency: 16 });
  f.addSync(list);
  const gated = await drive(f, async (url) => (await gate.check(url)).allowed);
  const mem = peak.stop();
  await gate.close();

  console.log(`${(HOSTS * PER_HOST).toLocaleString('en-US')} URLs over ${HOSTS.toLocaleString('en-US')} hosts, robots.txt from ${files.length} real files under 2 KB; simulated clock, 2 s floor, 16 in flight.\n`);
  console.log('| run | decisions/s | peak RSS | peak heap | target |');
  console.log('| --- | ---: | ---: | ---: | --- |');
  console.log(`| frontier + RobotsGate (${gated.allowed.toLocaleString('en-US')} allowed) | ${Math.round(gated.decisions / (gated.ms / 1000)).toLocaleString('en-US')} | ${MB(mem.rss)} MB | ${MB(mem.heap)} MB | < 1,536 MB |`);
  console.log(`| frontier alone, same list | ${Math.round(alone.decisions / (alone.ms / 1000)).toLocaleString('en-US')} | | | |`);
}
