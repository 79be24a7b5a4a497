// Schedule bench: 1,000,000 queued URLs over 100,000 hosts, no network.
//  1. The frontier alone, on a simulated clock (2 s floor with jitter, 16 in flight, each request
//     taking 50 ms of simulated time): scheduling decisions per second and peak heap.
//  2. The whole crawl job (gate stub that allows at once, transport stub that answers at once,
//     audit sink that drops rows): decisions per second end to end.
//  Peer: the simple scheduler many crawlers use, a scan over every host for one that is ready,
//  measured on the same queue (fewer decisions: it is slow) and compared per decision.
import v8 from 'node:v8';
import vm from 'node:vm';
import os from 'node:os';
import { MemoryFrontier } from '../dist/politeness/index.js';
import { CrawlJob } from '../dist/crawl/index.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const HOSTS = 100_000;
const PER_HOST = 10;
const N = HOSTS * PER_HOST;
const MB = (b) => (b / 1024 / 1024).toFixed(0);

function urls() {
  const out = new Array(N);
  let k = 0;
  // Interleaved, as a real list is: host i's URLs spread through the list.
  for (let j = 0; j < PER_HOST; j++) for (let i = 0; i < HOSTS; i++) out[k++] = { url: `https://h${i}.example/p/${j}`, host: `h${i}.example` };
  return out;
}

function peakSampler() {
  let peak = process.memoryUsage().heapUsed;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
  return { sample: () => (peak = Math.max(peak, process.memoryUsage().heapUsed)), stop: () => (clearInterval(t), peak) };
}

/** Drive a frontier to the end on a simulated clock; returns decisions and wall ms. */
function simulate(f, limit = Infinity) {
  const inflight = []; // [end, taken], kept sorted by end (requests take 50 ms each)
  let now = 0;
  let decisions = 0;
  const t0 = performance.now();
  while (decisions < limit) {
    const r = f.takeSync(now);
    if (r.kind === 'item') {
      decisions++;
      inflight.push([now + 50, r]);
      continue;
    }
    if (r.kind === 'drained') break;
    const next = Math.min(inflight.length ? inflight[0][0] : Infinity, r.retryAt ?? Infinity);
    now = Math.max(now, next);
    while (inflight.length && inflight[0][0] <= now) {
      const [end, t] = inflight.shift();
      f.release(t, end, undefined, false);
    }
  }
  return { decisions, ms: performance.now() - t0, simulatedMs: now };
}

/** The peer: per-host queues in a Map, and for each decision a scan for the first ready host. */
class ScanScheduler {
  constructor(minIntervalMs, concurrency) {
    this.hosts = new Map();
    this.min = minIntervalMs;
    this.concurrency = concurrency;
    this.inFlight = 0;
  }
  addSync(items) {
    for (const { url, host } of items) {
      let h = this.hosts.get(host);
      if (!h) this.hosts.set(host, (h = { q: [], head: 0, busy: false, readyAt: 0 }));
      h.q.push(url);
    }
  }
  takeSync(now) {
    if (this.inFlight >= this.concurrency) return { kind: 'wait', retryAt: null };
    let soonest = Infinity;
    for (const [host, h] of this.hosts) {
      if (h.busy || h.head >= h.q.length) continue;
      if (h.readyAt <= now) {
        h.busy = true;
        this.inFlight++;
        return { kind: 'item', item: { url: h.q[h.head++], host }, lease: { host } };
      }
      soonest = Math.min(soonest, h.readyAt);
    }
    return soonest === Infinity ? (this.inFlight ? { kind: 'wait', retryAt: null } : { kind: 'drained' }) : { kind: 'wait', retryAt: soonest };
  }
  release(t, end) {
    const h = this.hosts.get(t.lease.host);
    h.busy = false;
    h.readyAt = end + this.min * (1 + Math.random() * 0.2);
    this.inFlight--;
  }
}

const nullAudit = { recordAttempt() {}, recordPolicy() {}, recordPolicyChange() {}, close() {} };
const stubGate = {
  async check(url) {
    return {
      url,
      origin: url.slice(0, url.indexOf('/', 8)),
      allowed: true,
      reason: 'no-matching-rule',
      rule: null,
      group: null,
      policy: { robotsUrl: '', finalUrl: '', status: 200, sha256: 'stub', fetchedAt: '', expiresAt: '', sitemaps: [] },
      stale: false,
      overridden: false,
    };
  },
  isUnderOverride: () => false,
  on() {},
  off() {},
};
const stubTransport = {
  async fetch(url, { decision }) {
    const now = Date.now();
    // 404: answered, nothing to save (this bench measures scheduling, not the disk).
    return { hops: [{ url, decision, startedAt: now, endedAt: now, status: 404, headers: {}, location: null, blocked: false, error: null }], body: new Uint8Array(0), truncated: false };
  },
  async close() {},
};

export async function run() {
  const list = urls();
  gc();
  const base = process.memoryUsage().heapUsed;

  // 1. Frontier alone.
  const peak1 = peakSampler();
  const f = new MemoryFrontier({ minIntervalMs: 2000, concurrency: 16 });
  let t0 = performance.now();
  f.addSync(list);
  const addMs = performance.now() - t0;
  peak1.sample();
  const sim = simulate(f);
  const peakHeap = peak1.stop();
  const frontierRate = sim.decisions / (sim.ms / 1000);

  // Peer on the same queue, for a bounded number of decisions.
  const peerDecisions = 3_000;
  const peer = new ScanScheduler(2000, 16);
  peer.addSync(list);
  const ps = simulate(peer, peerDecisions);
  const peerRate = ps.decisions / (ps.ms / 1000);

  // 2. The crawl job end to end (stubs), floor 0 so the loop never sleeps.
  gc();
  const peak2 = peakSampler();
  const f2 = new MemoryFrontier({ minIntervalMs: 0, jitter: 0, concurrency: 16 });
  f2.addSync(list);
  const job = new CrawlJob({ gate: stubGate, frontier: f2, transport: stubTransport, audit: nullAudit, outDir: os.tmpdir(), runId: 'bench' });
  t0 = performance.now();
  const res = await job.run();
  const jobMs = performance.now() - t0;
  const jobPeak = peak2.stop();
  const settled = Object.values(res.stats.outcomes).reduce((a, b) => a + b, 0);
  const jobRate = settled / (jobMs / 1000);

  console.log(`${N.toLocaleString('en')} URLs over ${HOSTS.toLocaleString('en')} hosts; simulated clock, 2 s floor (+0-20 % jitter), 16 in flight, 50 ms per request\n`);
  console.log('| scheduler | decisions | wall time | decisions/s | vs robots-gate |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  console.log(`| robots-gate MemoryFrontier (one timer heap) | ${sim.decisions.toLocaleString('en')} | ${(sim.ms / 1000).toFixed(2)} s | ${Math.round(frontierRate).toLocaleString('en')} | 1.00 |`);
  console.log(`| scan every host per decision (peer) | first ${ps.decisions.toLocaleString('en')} (its cheapest: most hosts ready) | ${(ps.ms / 1000).toFixed(2)} s | ${Math.round(peerRate).toLocaleString('en')} | ${(peerRate / frontierRate).toFixed(4)} |`);
  console.log(`| robots-gate CrawlJob end to end (stub gate, transport, audit) | ${settled.toLocaleString('en')} | ${(jobMs / 1000).toFixed(2)} s | ${Math.round(jobRate).toLocaleString('en')} | ${(jobRate / frontierRate).toFixed(2)} |`);
  console.log('');
  console.log('| memory | value |');
  console.log('| --- | ---: |');
  console.log(`| enqueue 1,000,000 URLs | ${(addMs / 1000).toFixed(2)} s |`);
  console.log(`| peak heap, frontier run (over the URL list itself: ${MB(base)} MB) | ${MB(peakHeap)} MB (+${MB(peakHeap - base)} MB) |`);
  console.log(`| peak heap, crawl job run | ${MB(jobPeak)} MB |`);
  // Here concurrency is the limit (1,000,000 × 50 ms / 16 in flight), not politeness.
  const bound = Math.max(PER_HOST * 2000 * 1.2, (N * 50) / 16);
  console.log(`| simulated makespan / its bound max(politeness, concurrency) | ${(sim.simulatedMs / bound).toFixed(3)} |`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
