#!/usr/bin/env node
// `npm run demo:sitemaps`: `robots-gate crawl --sitemaps` over a few replayed real sites, entirely
// on this machine.
//
// 1. Start the replay server (scripts/replay-server.mjs) with generated sitemaps: each chosen host
//    serves its real robots.txt plus one added `Sitemap:` line naming /replay-sitemap.xml, which
//    lists paths taken from the file's own rules (allowed and disallowed alike) with a <lastmod>;
//    half the pages answer with a Last-Modified that agrees with it, half with a later one.
// 2. The real Sitemap lines name https:// hosts this replay cannot serve: each of them is resolved
//    to 127.0.0.1 on its own port, where nothing listens, so no request leaves the machine (their
//    robots.txt is unreachable, so the gate disallows them: RFC 9309 §2.3.1.4).
// 3. Run the crawl as a subprocess, then `robots-gate audit --sitemaps`, and check from the
//    server's side: no disallowed URL arrived, every gap between two requests to a host (robots.txt,
//    sitemap and pages alike) at least the host's interval.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as parserModule from '../dist/parser/index.js';
import { SITEMAP_PATH, loadExamples, start } from './replay-server.mjs';
import { DEMO_USER_AGENT, buildUrlList } from './url-list.mjs';

const ROOT = resolvePath(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'demo-out', 'sitemaps');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const HOSTS = 4;
const FLOOR_MS = 2000; // the CLI's default --min-interval: the waits are the real ones
const LASTMOD = '2025-06-01';
const AGREES = 'Sun, 01 Jun 2025 10:00:00 GMT';
const LATER = 'Wed, 01 Oct 2025 00:00:00 GMT';
const say = (line = '') => process.stdout.write(`${line}\n`);

function run(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => child.kill('SIGTERM'), 5 * 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
}

async function main() {
  const examples = loadExamples();
  // Hosts the demo can crawl in a few seconds each: no Crawl-delay past the floor.
  const probe = buildUrlList(examples, { origin: (h) => `http://${h}` });
  const chosen = probe.filter((h) => !h.skipped && (h.crawlDelaySeconds ?? 0) * 1000 <= FLOOR_MS).slice(0, HOSTS);
  const sitemaps = new Map(
    chosen.map((h) => {
      const allowed = h.urls.filter((u) => u.allowed).slice(0, 4);
      const disallowed = h.urls.filter((u) => !u.allowed).slice(0, 2);
      return [h.host, [...allowed, ...disallowed].map((u, i) => ({ path: u.path, lastmod: LASTMOD, lastModified: i % 2 === 0 ? AGREES : LATER }))];
    }),
  );
  const replay = await start(0, { examples, hosts: chosen.map((h) => h.host), sitemaps });
  try {
    // Every host a real Sitemap line names, pinned to loopback (nothing listens on 80 or 443 there).
    const elsewhere = new Set();
    for (const h of chosen) {
      const bytes = examples.find((e) => e.host === h.host).bytes;
      for (const s of parserModule.parseRobotsTxt(bytes, { url: `https://${h.host}/robots.txt` }).sitemaps) {
        try {
          elsewhere.add(new URL(s).hostname);
        } catch {
          // a Sitemap line that is no URL: discovery drops it as invalid
        }
      }
    }
    const pinned = [...elsewhere].filter((h) => !replay.hosts.includes(h)).flatMap((h) => ['--resolve', `${h}:443:127.0.0.1`, '--resolve', `${h}:80:127.0.0.1`]);
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const list = join(OUT, 'origins.txt');
    writeFileSync(list, chosen.map((h) => replay.origin(h.host)).join('\n') + '\n');
    say(`robots-gate crawl --sitemaps over ${chosen.length} replayed sites: ${chosen.map((h) => h.host).join(', ')}`);
    say(`(${elsewhere.size} hosts named by their real Sitemap lines are pinned to 127.0.0.1, where nothing answers)\n`);
    const crawlDir = join(OUT, 'crawl');
    const code = await run(['crawl', list, '--sitemaps', '--user-agent', DEMO_USER_AGENT, '--out', crawlDir, ...replay.resolveArgs, ...pinned]);
    say(`\ncrawl exit code ${code} (1: some sitemap could not be read, as expected for the real https:// ones)\n`);
    await run(['audit', crawlDir, '--sitemaps']);

    // The server's side.
    const problems = [];
    for (const h of chosen) {
      const bytes = examples.find((e) => e.host === h.host).bytes;
      const robots = parserModule.parseRobotsTxt(bytes);
      const seen = replay.log.filter((r) => r.host === h.host);
      for (const r of seen) if (r.path !== '/robots.txt' && r.path !== SITEMAP_PATH && !robots.isAllowed(r.path, DEMO_USER_AGENT)) problems.push(`${h.host}${r.path}: disallowed, yet it arrived`);
      for (let i = 1; i < seen.length; i++) {
        const gap = seen[i].startedAt - seen[i - 1].endedAt;
        if (gap < FLOOR_MS) problems.push(`${h.host}: ${gap.toFixed(0)} ms between ${seen[i - 1].path} and ${seen[i].path}`);
      }
      const pages = seen.filter((r) => r.path !== '/robots.txt' && r.path !== SITEMAP_PATH).length;
      say(`${h.host}: robots.txt ${seen.filter((r) => r.path === '/robots.txt').length}, sitemap ${seen.filter((r) => r.path === SITEMAP_PATH).length}, pages ${pages} of ${sitemaps.get(h.host).length} listed`);
    }
    say(problems.length ? `\nPROBLEMS:\n${problems.join('\n')}` : `\nserver side: no disallowed URL arrived; every gap between two requests to a host was at least ${FLOOR_MS} ms`);
    say(`audit: ${join('demo-out', 'sitemaps', 'crawl')} (robots-gate audit ${join('demo-out', 'sitemaps', 'crawl')} --sitemaps; robots-gate report ${join('demo-out', 'sitemaps', 'crawl')} --html report.html)`);
    process.exitCode = problems.length ? 1 : 0;
  } finally {
    await replay.close();
  }
}

main().catch((err) => {
  process.stderr.write(`demo-sitemaps: ${err.stack ?? err}\n`);
  process.exit(2);
});
