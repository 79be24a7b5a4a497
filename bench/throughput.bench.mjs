// Crawl throughput: `robots-gate crawl` (gate, frontier, pacing, documents saved, SQLite audit) over
// 200, 2,000 and 20,000 loopback host names against a plain undici request() loop at the same
// concurrency over the same URLs (bench/throughput-peer.mjs), both as subprocesses of this one, which
// serves every host from one loopback server. No floor between requests to a host (--min-interval 0):
// what is measured is the crawler's own cost per URL, not politeness. URLs/s and peak RSS (GNU time).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, '..', 'dist', 'cli', 'main.js');
const CONCURRENCY = 16;
const PLANS = (process.env.THROUGHPUT_PLANS ? JSON.parse(process.env.THROUGHPUT_PLANS) : [[200, 10], [2_000, 10], [20_000, 1]]); // hosts, URLs per host
const page = '<html><body>' + 'x'.repeat(4_000) + '</body></html>';
// --out on tmpfs where there is one (THROUGHPUT_OUT overrides): each plan creates and then deletes
// 20,000 files, and ext4 then hunts past recently freed inodes for the next run's (seen here: the
// same crawl's kernel time from 1.4 to 10 s, run to run). That cost is the disk's, and the loop it
// is compared with writes nothing.
const OUT_BASE = process.env.THROUGHPUT_OUT ?? (isWritableDir('/dev/shm') ? '/dev/shm' : os.tmpdir());

function isWritableDir(dir) {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The loopback server both crawlers ask. `window()` gives the span (ms) from the first request it
 *  received to the last response it finished since the last call: the same clock for both, without
 *  either process's start-up or exit. */
async function server() {
  let first = 0;
  let last = 0;
  const s = http.createServer((req, res) => {
    if (first === 0) first = performance.now();
    res.on('finish', () => (last = performance.now()));
    if (req.url === '/robots.txt') return void res.end('User-agent: *\nDisallow: /private\n');
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  s.keepAliveTimeout = 60_000;
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return {
    port: s.address().port,
    window() {
      const ms = last - first;
      first = last = 0;
      return ms;
    },
    close: () => new Promise((r) => (s.closeAllConnections(), s.close(r))),
  };
}

/** Run a command under GNU time; resolves with its stdout, stderr and peak RSS in MB. */
function timed(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'MAXRSS %M', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => {
      const m = /MAXRSS (\d+)/.exec(err);
      resolve({ code, out, err, rssMB: m ? Number(m[1]) / 1024 : NaN });
    });
  });
}

/** Rounds per plan (THROUGHPUT_ROUNDS, default 3): this machine's speed drifts by a fifth from
 *  minute to minute, so each figure is the median of its rounds, and each ratio the median of
 *  the rounds' own ratios (each round times the crawl and its peer back to back). */
const ROUNDS = Math.max(1, Number(process.env.THROUGHPUT_ROUNDS ?? 3));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One round of a plan: the crawl, then the loop over the same list. */
async function round(srv, hosts, per) {
  const dir = fs.mkdtempSync(path.join(OUT_BASE, 'rg-throughput-'));
  try {
    const names = Array.from({ length: hosts }, (_, i) => `h${i}.bench.test`);
    const urls = [];
    for (let k = 0; k < per; k++) for (const h of names) urls.push(`http://${h}:${srv.port}/p${k}.html`);
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, urls.join('\n') + '\n');
    const resolve = names.flatMap((h) => ['--resolve', `${h}:${srv.port}:127.0.0.1`]);
    const t0 = performance.now();
    const crawl = await timed([process.execPath, CLI, 'crawl', list, '--user-agent', 'BenchBot/1.0 (+https://bench.example/bot)', '--out', path.join(dir, 'out'),
      '--concurrency', String(CONCURRENCY), '--min-interval', '0', '--progress-interval', '600000', ...resolve]);
    const crawlMs = performance.now() - t0;
    const crawlWindowMs = srv.window();
    if (crawl.code !== 0) {
      // Reported, not thrown: the other rows still stand (at 20,000 hosts the crawl can run out of
      // file descriptors, one idle keep-alive connection per host).
      const why = /(E[A-Z]{3,}[^\n]*)/.exec(crawl.err)?.[1] ?? `exit ${crawl.code}`;
      return { hosts, urls: urls.length, failed: why.slice(0, 120) };
    }
    const p0 = performance.now();
    const peer = await timed([process.execPath, path.join(here, 'throughput-peer.mjs'), list, String(CONCURRENCY), '127.0.0.1', String(srv.port)]);
    const peerProcMs = performance.now() - p0;
    const peerWindowMs = srv.window();
    if (peer.code !== 0) {
      // Reported too: a plain undici loop keeps an idle socket per origin (its Agent's defaults)
      // and runs out of file descriptors at 20,000 hosts; the bench must still print its table.
      const why = /(E[A-Z]{3,}[^\n]*)/.exec(peer.err)?.[1] ?? `exit ${peer.code}`;
      return { hosts, urls: urls.length, crawl: urls.length / (crawlMs / 1000), crawlRss: crawl.rssMB, peerFailed: why.slice(0, 120) };
    }
    const p = JSON.parse(peer.out.trim().split('\n').pop());
    // Both figures include start-up (the crawl's: reading --resolve, opening the audit).
    return { hosts, urls: urls.length, crawl: urls.length / (crawlMs / 1000), crawlRss: crawl.rssMB, peer: urls.length / (p.ms / 1000), peerRss: peer.rssMB, peerProc: urls.length / (peerProcMs / 1000), crawlWindow: urls.length / (crawlWindowMs / 1000), peerWindow: urls.length / (peerWindowMs / 1000) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  if (!fs.existsSync('/usr/bin/time')) {
    console.log('GNU time (/usr/bin/time) is missing: apt-get install time. Skipped.');
    return;
  }
  const srv = await server();
  const rows = [];
  try {
    for (const [hosts, per] of PLANS) {
      const rounds = [];
      for (let i = 0; i < ROUNDS; i++) {
        const r = await round(srv, hosts, per);
        rounds.push(r);
        if (r.failed || r.peerFailed) break;
      }
      const bad = rounds.find((r) => r.failed || r.peerFailed);
      if (bad) {
        rows.push(bad);
        continue;
      }
      const m = (k) => median(rounds.map((r) => r[k]));
      const ratio = (a, b) => median(rounds.map((r) => r[a] / r[b]));
      rows.push({
        hosts, urls: rounds[0].urls, crawl: m('crawl'), crawlRss: Math.max(...rounds.map((r) => r.crawlRss)), peer: m('peer'), peerRss: Math.max(...rounds.map((r) => r.peerRss)),
        peerProc: m('peerProc'), crawlWindow: m('crawlWindow'), peerWindow: m('peerWindow'),
        ratio: ratio('crawl', 'peer'), ratioProc: ratio('crawl', 'peerProc'), ratioWindow: ratio('crawlWindow', 'peerWindow'),
        spread: rounds.map((r) => (r.crawlWindow / r.peerWindow).toFixed(2)).join(', '),
      });
    }
  } finally {
    await srv.close();
  }
  console.log(`| hosts | URLs | robots-gate crawl, URLs/s | peak RSS | undici request() loop, URLs/s | peak RSS | ratio | target | loop timed as a process, URLs/s | ratio to it | at the server: crawl / loop, URLs/s | ratio |`);
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    if (r.failed) {
      console.log(`| ${r.hosts.toLocaleString('en-US')} | ${r.urls.toLocaleString('en-US')} | failed: ${r.failed} | | | | | |`);
      continue;
    }
    if (r.peerFailed) {
      console.log(`| ${r.hosts.toLocaleString('en-US')} | ${r.urls.toLocaleString('en-US')} | ${Math.round(r.crawl).toLocaleString('en-US')} | ${Math.round(r.crawlRss)} MB | peer failed: ${r.peerFailed} | | | |`);
      continue;
    }
    console.log(`| ${r.hosts.toLocaleString('en-US')} | ${r.urls.toLocaleString('en-US')} | ${Math.round(r.crawl).toLocaleString('en-US')} | ${Math.round(r.crawlRss)} MB | ${Math.round(r.peer).toLocaleString('en-US')} | ${Math.round(r.peerRss)} MB | ${r.ratio.toFixed(2)} | ${r.hosts === 2_000 ? '≥ 0.5' : ''} | ${Math.round(r.peerProc).toLocaleString('en-US')} | ${r.ratioProc.toFixed(2)} | ${Math.round(r.crawlWindow).toLocaleString('en-US')} / ${Math.round(r.peerWindow).toLocaleString('en-US')} | ${r.ratioWindow.toFixed(2)} (${r.spread}) |`);
  }
  console.log(`\nConcurrency ${CONCURRENCY} for both; the crawl's time is the whole process (start-up, robots.txt per host, audit), the loop's its requests alone (the ratio against the target); the next two time the loop as the crawl is timed, from its start to its exit (node and undici loading, its connections closed); the last two time both alike at the server, from the first request it received to the last response it finished (no start-up or exit on either side; the crawl's window holds its robots.txt requests too). Each host's robots.txt is one more request for the crawl. The crawl's --out: ${OUT_BASE}. Medians of ${ROUNDS} rounds (THROUGHPUT_ROUNDS), each ratio the median of the rounds' own; in brackets, each round's ratio at the server.`);
}
