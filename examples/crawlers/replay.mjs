// What the three crawler examples share: the demo's replay server (real hosts' robots.txt on
// loopback), a URL list built from each file's own rules, an output folder, and the closing
// `robots-gate audit` of what the crawl did. Nothing leaves this machine.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadExamples, start } from '../../scripts/replay-server.mjs';
import { DEMO_USER_AGENT, buildUrlList } from '../../scripts/url-list.mjs';

const ROOT = resolvePath(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const USER_AGENT = DEMO_USER_AGENT;
/** Hosts without a Crawl-delay, so each example ends in seconds; their rules are the real ones. None is
 *  on Chromium's HSTS preload list: Chromium would upgrade its http: URLs to https: (an internal
 *  redirect the gate decides too, against the https: origin, which nothing serves here). */
export const HOSTS = ['google.com', 'stackoverflow.com', 'developer.mozilla.org', 'www.taz.de', 'spiegel.de', 'amazon.com'];

/**
 * Starts the replay server for HOSTS and plans 3 allowed and 2 disallowed URLs per host.
 * @returns {Promise<{ urls: string[], disallowed: Set<string>, resolve: string[], out: string, replay: object }>}
 */
export async function setUp(name) {
  const examples = loadExamples().filter((e) => HOSTS.includes(e.host));
  const replay = await start(0, { hosts: HOSTS });
  const plan = buildUrlList(examples, { origin: replay.origin, maxAllowed: 3, maxDisallowed: 2 });
  const urls = plan.flatMap((h) => h.urls.map((u) => u.url));
  const disallowed = new Set(plan.flatMap((h) => h.urls.filter((u) => !u.allowed).map((u) => u.url)));
  const out = join(ROOT, 'demo-out', name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // curl-style entries: the gate's robots.txt fetches (and the browser) reach the replay server.
  const resolve = replay.resolveArgs.filter((a) => a !== '--resolve');
  return { urls, disallowed, resolve, out, replay };
}

/** A dns.lookup that answers 127.0.0.1 for the replay's hosts and refuses every other name. */
export function loopbackLookup(hostname, options, callback) {
  if (typeof options === 'function') [callback, options] = [options, {}];
  const host = hostname.toLowerCase();
  if (!HOSTS.includes(host)) return callback(Object.assign(new Error(`not a replay host: ${host}`), { code: 'ENOTFOUND' }));
  if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  callback(null, '127.0.0.1', 4);
}

/**
 * Checks from the server's side that no disallowed URL arrived, then prints `robots-gate audit`
 * of the run (and its --verify). @returns the process exit code to use.
 */
export function finish({ replay, disallowed, out }) {
  const arrived = replay.log.filter((r) => disallowed.has(`${replay.origin(r.host)}${r.path}`));
  const robots = replay.log.filter((r) => r.path === '/robots.txt').length;
  const pages = replay.log.length - robots;
  process.stdout.write(`\nserver side: ${pages} page requests, ${robots} robots.txt requests, ${arrived.length} disallowed URLs arrived\n`);
  const cli = join(ROOT, 'dist', 'cli', 'main.js');
  process.stdout.write(`\n$ robots-gate audit ${out}\n`);
  const audit = spawnSync(process.execPath, [cli, 'audit', out], { stdio: 'inherit' });
  process.stdout.write(`\n$ robots-gate audit ${out} --verify\n`);
  const verify = spawnSync(process.execPath, [cli, 'audit', out, '--verify'], { stdio: 'inherit' });
  return arrived.length === 0 && audit.status === 0 && verify.status === 0 ? 0 : 1;
}
