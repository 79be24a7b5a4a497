#!/usr/bin/env node
// Builds the demo's URL list from each example robots.txt's own rules: concrete paths made from
// its Allow/Disallow patterns (allowed and disallowed alike) plus a few ordinary pages. The
// project's parser decides which group applies to the demo's user agent and labels every URL, so
// the list says in advance what a correct crawl must and must not fetch.
//
// The number of URLs per host is budgeted so that the crawl's politeness bound (allowed URLs on a
// host × its interval: the larger of its Crawl-delay and the crawl's floor) stays within `budgetMs`.
// Crawl-delay is not in RFC 9309; it is the common extension the crawl honours as a hard floor.
//
// As a command: node scripts/url-list.mjs [--web | --origin-port PORT] > urls.txt
//   --web: https://HOST/... (the real web); --origin-port: http://HOST:PORT/... (a local replay)
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as parserModule from '../dist/parser/index.js';
import { loadExamples } from './replay-server.mjs';

export const DEMO_USER_AGENT = 'robots-gate-demo/0.1 (+https://example.invalid/robots-gate-demo)';

/** Pages most sites have, so every host gets a few URLs even when its file has no rules. */
export const ORDINARY_PAGES = [
  '/',
  '/about',
  '/contact',
  '/index.html',
  '/news/2026/robots-gate-demo',
  '/docs/getting-started',
  '/images/logo.png',
  '/search?q=robots',
];

function parserOrThrow() {
  if (typeof parserModule.parseRobotsTxt !== 'function') {
    throw new Error('dist/parser/index.js does not export parseRobotsTxt yet: run `npm run build`');
  }
  return parserModule.parseRobotsTxt;
}

/**
 * The Allow/Disallow lines of a robots.txt body, as written, in file order. A light scan for
 * candidate paths only: which of them apply, and how, is the parser's job.
 * UTF-16 bodies (BOM FF FE / FE FF) are decoded here so their paths appear in the list too; what the
 * crawl then does with them is up to the parser (RFC 9309 §2.3 expects UTF-8).
 * @param {Uint8Array} bytes
 * @returns {{ type: 'allow' | 'disallow', pattern: string, line: number }[]}
 */
export function scanRules(bytes) {
  let encoding = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = 'utf-16be';
  // TextDecoder drops the BOM and replaces invalid sequences with U+FFFD.
  const text = new TextDecoder(encoding).decode(bytes);
  const rules = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*(allow|disallow)\s*(?::|\s)\s*([^#]*)/i.exec(lines[i]);
    if (!m) continue;
    const pattern = m[2].trim();
    if (pattern !== '') rules.push({ type: m[1].toLowerCase(), pattern, line: i + 1 });
  }
  return rules;
}

const KEEP = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

/**
 * A concrete path that a pattern matches: each `*` becomes a word, a trailing `$` is dropped,
 * a leading `/` is added when missing, and anything not allowed in a URL path is percent-encoded
 * (non-ASCII as UTF-8, RFC 9309 §2.2.2). Existing `%XX` escapes are kept.
 * @param {string} pattern
 * @returns {string | null} path and query, starting with '/'; null when nothing sensible comes out
 */
export function patternToPath(pattern) {
  let p = pattern.replace(/\$$/, '').replace(/\*+/g, 'demo');
  if (!p.startsWith('/')) p = `/${p}`;
  let out = '';
  const chars = [...p];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (KEEP.test(c)) out += c;
    else if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(chars.slice(i + 1, i + 3).join(''))) out += c;
    else if (c === '\uFFFD') out += 'x'; // an invalid byte in the file: no character to encode
    else out += encodeURIComponent(c);
  }
  try {
    const u = new URL(out, 'http://x.invalid');
    const path = u.pathname + u.search;
    return path.length > 300 ? null : path;
  } catch {
    return null;
  }
}

/** Evenly spaced picks from a long list, in order (large files have tens of thousands of rules). */
function spread(list, max) {
  if (list.length <= max) return list;
  const step = list.length / max;
  return Array.from({ length: max }, (_, i) => list[Math.floor(i * step)]);
}

/**
 * URLs for one host, each labelled by the parser for `userAgent`.
 * @param {{ host: string, bytes: Uint8Array }} example
 * @param {{
 *   origin: string,              // 'https://HOST' or 'http://HOST:PORT': prefixed to every path
 *   userAgent?: string,          // default DEMO_USER_AGENT
 *   minIntervalMs?: number,      // the crawl's floor (ms), default 2000 (the CLI's default)
 *   jitter?: number,             // the floor's worst-case jitter, default 0.2 (+20 %)
 *   budgetMs?: number,           // politeness bound to stay within (ms), default 60,000
 *   maxCrawlDelaySeconds?: number, // over this the CLI skips the host (s), default 60
 *   maxAllowed?: number,         // allowed URLs per host at most, default 20
 *   maxDisallowed?: number,      // disallowed URLs per host at most, default 8
 * }} options
 * @returns {{
 *   host: string, crawlDelaySeconds: number | undefined, intervalMs: number, skipped: boolean,
 *   boundMs: number,             // allowed URLs × intervalMs (0 if skipped): the robots.txt fetch
 *                                // at the start, then one interval before each page
 *   urls: { url: string, path: string, allowed: boolean, rule: { type: string, pattern: string, line: number } | null }[],
 * }}
 */
export function buildHostUrls(example, options) {
  const parse = parserOrThrow();
  const {
    origin,
    userAgent = DEMO_USER_AGENT,
    minIntervalMs = 2000,
    jitter = 0.2,
    budgetMs = 60_000,
    maxCrawlDelaySeconds = 60,
    maxAllowed = 20,
    maxDisallowed = 8,
  } = options;
  const robots = parse(example.bytes, { url: `${origin}/robots.txt` });
  const crawlDelaySeconds = robots.crawlDelay(userAgent);
  const skipped = crawlDelaySeconds !== undefined && crawlDelaySeconds > maxCrawlDelaySeconds;
  const intervalMs = Math.max((crawlDelaySeconds ?? 0) * 1000, minIntervalMs * (1 + jitter));
  // Counted as if the robots.txt fetch were the host's first request, so the first page waits one
  // interval too: the bound holds whether or not the crawl spaces pages from that fetch.
  const allowedCap = skipped ? 2 : Math.min(maxAllowed, Math.max(1, Math.floor(budgetMs / intervalMs)));
  const disallowedCap = skipped ? 2 : maxDisallowed;

  const seen = new Set();
  const labelled = [];
  const add = (path) => {
    if (path === null || seen.has(path) || path === '/robots.txt') return;
    seen.add(path);
    const r = robots.check(path, userAgent);
    labelled.push({ path, allowed: r.allowed, rule: r.rule });
  };
  for (const p of ORDINARY_PAGES) add(p);
  for (const rule of spread(scanRules(example.bytes), 400)) add(patternToPath(rule.pattern));

  // A rule decides a URL (rule !== null) only when it is in the group that applies to us
  // (RFC 9309 §2.2.1), so those URLs come first after the home page; allowed URLs no rule touched
  // (ordinary pages, paths from other bots' groups) fill the rest.
  const allow = labelled.filter((u) => u.allowed);
  const home = allow.filter((u) => u.path === '/');
  const pickedAllowed = [
    ...home,
    ...allow.filter((u) => u.rule !== null && u.path !== '/'),
    ...allow.filter((u) => u.rule === null && u.path !== '/'),
  ].slice(0, allowedCap);
  const pickedDisallowed = spread(
    labelled.filter((u) => !u.allowed),
    disallowedCap,
  );
  // Interleaved, so a crawl must sort out disallowed URLs from inside one host's queue.
  const urls = [];
  for (let i = 0; i < Math.max(pickedAllowed.length, pickedDisallowed.length); i++) {
    for (const u of [pickedAllowed[i], pickedDisallowed[i]]) if (u) urls.push({ ...u, url: origin + u.path });
  }
  return {
    host: example.host,
    crawlDelaySeconds,
    intervalMs,
    skipped,
    boundMs: skipped ? 0 : pickedAllowed.length * intervalMs,
    urls,
  };
}

/**
 * The whole list, host by host in manifest order.
 * @param {{ host: string, bytes: Uint8Array }[]} examples
 * @param {Omit<Parameters<typeof buildHostUrls>[1], 'origin'> & { origin: (host: string) => string }} options
 * @returns {ReturnType<typeof buildHostUrls>[]}
 */
export function buildUrlList(examples, options) {
  return examples.map((e) => buildHostUrls(e, { ...options, origin: options.origin(e.host) }));
}

/**
 * The list as a file for `robots-gate crawl`: one URL a line, `#` comments saying per host what
 * the parser expects (the crawl skips comment lines).
 * @param {ReturnType<typeof buildUrlList>} hosts
 * @returns {string}
 */
export function formatUrlList(hosts, userAgent = DEMO_USER_AGENT) {
  const out = [`# robots-gate demo URL list for user agent: ${userAgent}`];
  for (const h of hosts) {
    const allowed = h.urls.filter((u) => u.allowed).length;
    const delay = h.crawlDelaySeconds === undefined ? 'no Crawl-delay' : `Crawl-delay ${h.crawlDelaySeconds} s`;
    out.push(
      `# ${h.host}: ${allowed} allowed, ${h.urls.length - allowed} disallowed by its robots.txt; ${delay}` +
        (h.skipped ? ' (over the maximum: the crawl skips this host)' : ''),
    );
    for (const u of h.urls) out.push(u.url);
  }
  return out.join('\n') + '\n';
}

function main(argv) {
  let origin = (host) => `https://${host}`;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--web') origin = (host) => `https://${host}`;
    else if (argv[i] === '--origin-port') {
      const port = Number(argv[++i]);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--origin-port takes 1..65535');
      origin = (host) => `http://${host}:${port}`;
    } else if (argv[i] === '--help' || argv[i] === '-h') {
      process.stdout.write('usage: node scripts/url-list.mjs [--web | --origin-port PORT] > urls.txt\n');
      return;
    } else throw new Error(`unknown argument: ${argv[i]}`);
  }
  process.stdout.write(formatUrlList(buildUrlList(loadExamples(), { origin })));
}

if (process.argv[1] && resolvePath(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`url-list: ${err.message}\n`);
    process.exit(2);
  }
}
