#!/usr/bin/env node
// `npm run demo`: a polite, audited crawl of real robots.txt policies, entirely on this machine.
//
// 1. Start the replay server: one loopback server answering for every host in examples/ with that
//    host's real robots.txt and a generated page for every other path.
// 2. Build a URL list from each file's own rules (allowed and disallowed paths alike), labelled
//    by the project's parser, and write it to demo-out/urls.txt (plus demo-out/urls-web.txt, the
//    same paths on the real https:// origins).
// 3. Run `robots-gate crawl` over it as a subprocess, with one --resolve per host, so the gate,
//    politeness and audit see the real host names.
// 4. Check the crawl from the server's side (no disallowed URL arrived, each robots.txt fetched
//    once, gaps between requests never below the host's interval) and print where the audit is.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as parserModule from '../dist/parser/index.js';
import { loadExamples, start } from './replay-server.mjs';
import { DEMO_USER_AGENT, buildUrlList, formatUrlList } from './url-list.mjs';

const ROOT = resolvePath(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'demo-out');
const CRAWL_DIR = join(OUT, 'crawl');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
// The CLI's default floor (ms). The demo does not pass --min-interval: the waits are the real ones.
const FLOOR_MS = 2000;
// Past this the demo stops the crawl: something is wrong, and a demo must not hang.
const HARD_TIMEOUT_MS = 5 * 60_000;

const rel = (p) => relative(process.cwd(), p) || '.';
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const say = (line = '') => process.stdout.write(`${line}\n`);
const shellQuote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function runCrawl(args) {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => {
      process.stderr.write(`demo: the crawl ran past ${secs(HARD_TIMEOUT_MS)}; stopping it\n`);
      child.kill('SIGTERM');
    }, HARD_TIMEOUT_MS);
    const onSignal = (sig) => child.kill(sig);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolveRun({ code: null, signal: null, error: err });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolveRun({ code, signal, error: null });
    });
  });
}

/** What the server saw, checked against the parser and the planned intervals. */
function checkServerSide(plan, log, parse) {
  const byHost = new Map(plan.map((h) => [h.host, h]));
  const parsed = new Map();
  const problems = [];
  let pages = 0;
  let tightest = null; // { host, gapMs, intervalMs }
  for (const h of plan) {
    const seen = log.filter((r) => r.host === h.host);
    const robots = seen.filter((r) => r.path === '/robots.txt').length;
    if (robots !== 1) problems.push(`${h.host}: robots.txt fetched ${robots} times`);
    const docs = seen.filter((r) => r.path !== '/robots.txt');
    pages += docs.length;
    if (h.skipped && docs.length) problems.push(`${h.host}: Crawl-delay ${h.crawlDelaySeconds} s, yet ${docs.length} pages were fetched`);
    const arrived = new Set(docs.map((r) => r.path));
    const missing = h.skipped ? [] : h.urls.filter((u) => u.allowed && !arrived.has(u.path));
    if (missing.length) problems.push(`${h.host}: ${missing.length} allowed URLs never arrived (e.g. ${missing[0].path})`);
    let robotsTxt = parsed.get(h.host);
    if (!robotsTxt) parsed.set(h.host, (robotsTxt = parse(h.bytes)));
    for (const r of docs) {
      if (!robotsTxt.isAllowed(r.path, DEMO_USER_AGENT)) problems.push(`${h.host}${r.path}: disallowed, yet it reached the server`);
    }
    // The gap the site sees: from the end of one response to the start of the next request.
    const required = Math.max((h.crawlDelaySeconds ?? 0) * 1000, FLOOR_MS);
    for (let i = 1; i < seen.length; i++) {
      if (seen[i - 1].path === '/robots.txt') continue; // the crawl may or may not space a page from the robots.txt fetch
      const gap = seen[i].startedAt - (seen[i - 1].endedAt ?? seen[i - 1].startedAt);
      if (gap < required) problems.push(`${h.host}: ${gap.toFixed(1)} ms between two requests, its interval is ${required} ms`);
      if (!tightest || gap / required < tightest.gapMs / tightest.intervalMs) tightest = { host: h.host, gapMs: gap, intervalMs: required };
    }
  }
  const strangers = log.filter((r) => !byHost.has(r.host)).length;
  if (strangers) problems.push(`${strangers} requests for hosts the replay does not serve`);
  return { problems, pages, tightest, robotsFetches: log.filter((r) => r.path === '/robots.txt').length };
}

async function readAudit(file) {
  try {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const outcomes = db.prepare('SELECT outcome, count(*) AS n FROM attempts GROUP BY outcome ORDER BY n DESC').all();
      const policies = db.prepare('SELECT count(*) AS n FROM policies').get().n;
      return { outcomes, policies };
    } finally {
      db.close();
    }
  } catch (err) {
    return { error: err.message };
  }
}

async function main() {
  const started = Date.now();
  if (typeof parserModule.parseRobotsTxt !== 'function') {
    throw new Error('dist/parser/index.js does not export parseRobotsTxt: run `npm run build` first');
  }
  if (!existsSync(CLI)) throw new Error(`${rel(CLI)} is missing: run \`npm run build\` first`);
  const examples = loadExamples();
  const replay = await start(0, { examples });
  try {
    const plan = buildUrlList(examples, { origin: replay.origin }).map((h, i) => ({ ...h, bytes: examples[i].bytes }));
    const web = plan.map((h) => ({ ...h, urls: h.urls.map((u) => ({ ...u, url: `https://${h.host}${u.path}` })) }));
    mkdirSync(OUT, { recursive: true });
    rmSync(CRAWL_DIR, { recursive: true, force: true }); // a fresh audit each run
    const listFile = join(OUT, 'urls.txt');
    const webListFile = join(OUT, 'urls-web.txt');
    writeFileSync(listFile, formatUrlList(plan));
    writeFileSync(webListFile, formatUrlList(web));

    const all = plan.flatMap((h) => h.urls);
    const allowed = all.filter((u) => u.allowed).length;
    const slowest = plan.reduce((a, b) => (b.boundMs > a.boundMs ? b : a));
    const skipped = plan.filter((h) => h.skipped);
    say(`robots-gate demo: ${plan.length} real robots.txt files from examples/, replayed on 127.0.0.1:${replay.port}`);
    say(`URL list: ${rel(listFile)}, ${all.length} URLs; the parser allows ${allowed} and disallows ${all.length - allowed} for "robots-gate-demo"`);
    say(
      `politeness bound: ${secs(slowest.boundMs)} (${slowest.host}: ${slowest.urls.filter((u) => u.allowed).length} pages × ${secs(slowest.intervalMs)}); ` +
        `floor ${secs(FLOOR_MS)} (+ up to 20 % jitter), no --min-interval`,
    );
    if (skipped.length) {
      say(`expected to be skipped (Crawl-delay over 60 s): ${skipped.map((h) => `${h.host} (${h.crawlDelaySeconds} s)`).join(', ')}`);
    }
    say('');

    const crawlArgs = ['crawl', listFile, '--user-agent', DEMO_USER_AGENT, '--out', CRAWL_DIR];
    const crawlStarted = Date.now();
    const run = await runCrawl([...crawlArgs, ...replay.resolveArgs]);
    const crawlMs = Date.now() - crawlStarted;

    const check = checkServerSide(plan, replay.log, parserModule.parseRobotsTxt);
    const audit = await readAudit(join(CRAWL_DIR, 'audit.sqlite'));
    say('');
    say('── demo summary ──');
    if (run.error) say(`crawl did not start: ${run.error.message}`);
    else say(`crawl exited with ${run.signal ? `signal ${run.signal}` : `code ${run.code}`} after ${secs(crawlMs)} (politeness bound ${secs(slowest.boundMs)})`);
    say(`the replay server saw ${check.robotsFetches} robots.txt fetches and ${check.pages} page requests`);
    if (check.tightest) {
      say(
        `tightest gap between two requests to one host, measured at the server: ${(check.tightest.gapMs / 1000).toFixed(3)} s ` +
          `on ${check.tightest.host} (its interval ${secs(check.tightest.intervalMs)})`,
      );
    }
    if (check.problems.length === 0) {
      say('server-side check: no disallowed URL arrived, every allowed one did; each robots.txt fetched once; no gap below its interval');
    }
    else {
      say(`server-side check: ${check.problems.length} problems`);
      for (const p of check.problems.slice(0, 20)) say(`  ${p}`);
    }
    const auditFile = rel(join(CRAWL_DIR, 'audit.sqlite'));
    if (audit.error) say(`audit: ${auditFile} (could not read it: ${audit.error})`);
    else {
      say(`audit: ${auditFile}: ${audit.outcomes.map((o) => `${o.n} ${o.outcome}`).join(', ')}; ${audit.policies} policy texts`);
      say(`  e.g. sqlite3 ${auditFile} "SELECT outcome, reason, count(*) FROM attempts GROUP BY 1, 2"`);
    }
    say('');
    say('The same crawl on the real web (same paths on https://, no --resolve; about a minute, ~64 sites):');
    say(`  node dist/cli/main.js ${['crawl', rel(webListFile), '--user-agent', DEMO_USER_AGENT, '--out', 'demo-out/web'].map(shellQuote).join(' ')}`);
    say(`demo finished in ${secs(Date.now() - started)}`);
    const ok = !run.error && run.code === 0 && check.problems.length === 0;
    process.exitCode = ok ? 0 : 1;
  } finally {
    await replay.close();
  }
}

main().catch((err) => {
  process.stderr.write(`demo: ${err.message}\n`);
  process.exitCode = 2;
});
