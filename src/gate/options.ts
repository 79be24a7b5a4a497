// RobotsGate options: documented, defaulted and checked in one place.
import type { Dispatcher } from 'undici';
import { PURPOSES, type Purpose } from '../usage/index.js';
import type { PolicyStore, RateLimiter } from '../stores/types.js';
import { MAX_TIMEOUT_MS } from '../fetcher/robots-fetcher.js';
import { InvalidOptionError } from './errors.js';


/** The back-off after a 429/503 without a usable Retry-After (ms), and the longest honoured (ms):
 *  the gate's defaults, and the crawl's. */
export const DEFAULT_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 3_600_000;

export interface RobotsGateOptions {
  /** Required. The exact User-Agent header of every request the gate makes or lets through (the
   *  robots.txt fetch included). Unless productToken is given, rules are matched against its product
   *  token (`MyBot/1.0 (+url)` → `MyBot`; `Mozilla/5.0 (compatible; GPTBot/1.1)` → `GPTBot`), which
   *  must be letters, digits, `_` and `-` (RFC 9309 §2.2.1). */
  userAgent: string;
  /** The product token robots.txt groups are matched against, when it is not the one read from
   *  userAgent, or an ordered fallback list (`['MyBot-News', 'MyBot']`: the first token some group
   *  names decides; only when none is named do `*` groups apply). Each is letters, digits, `_`, `-`
   *  and must occur in userAgent as a product (`MyBot/1.0`, `MyBot;`, `MyBot)`), case-insensitively.
   *  Required for a browser-style `Mozilla/…` userAgent with no `compatible; Name/version` product.
   *  Default: read from userAgent (`Mozilla/5.0 (compatible; GPTBot/1.1; +…)` → `GPTBot`). */
  productToken?: string | readonly string[];
  /** undici Dispatcher for robots.txt fetches and `gate.fetch`. Default: an Agent of the gate's own
   *  (never the global dispatcher, so composing `gate.interceptor()` globally cannot recurse). */
  dispatcher?: Dispatcher;
  /** curl-style `HOST:PORT:ADDR` entries: connect there instead (robots.txt fetches too). Not
   *  together with `dispatcher` (build that one with createResolvingAgent). */
  resolve?: readonly string[];
  /** Whole robots.txt fetch, redirects and body included, in ms (at most 2^31-1: Node fires a longer
   *  timer at once, and every fetch would time out). Default 10 000. */
  timeoutMs?: number;
  /** robots.txt bytes parsed at most, after content decoding (RFC 9309 §2.5 asks for at least
   *  500 KiB). Default 512 000. */
  maxBytes?: number;
  /** Redirect hops followed for robots.txt; more, or a loop, is unavailable (§2.3.1.2). Default 5. */
  maxRedirects?: number;
  /** Origins whose policy is cached at most (1 to 1 000 000); least recently used go first. Default 10 000. */
  maxOrigins?: number;
  /** How long a fetched robots.txt is used before a refetch, in ms (RFC 9309 §2.4). A shorter
   *  Cache-Control max-age wins. Default 86 400 000 (24 h). */
  maxAgeMs?: number;
  /** Floor on a Cache-Control max-age, in ms, so `max-age=0` cannot make every check a fetch.
   *  Default 60 000. */
  minAgeMs?: number;
  /** First retry after a failed fetch (unreachable, or a vanished file kept), in ms; doubles with
   *  each consecutive failure, up to maxAgeMs. A longer Retry-After wins. Default 60 000. */
  retryMs?: number;
  /** Fetch disallowed URLs anyway: `true` for every host, or a list of host names (any port; for a
   *  pipeline with a documented right to). Such decisions say `overridden: true`. Default: none. */
  override?: boolean | readonly string[];
  /** Minimum spacing of requests to a host under override, in ms (the politeness layer applies it).
   *  Default: env ROBOTS_OVERRIDE_INTERVAL_MS, else 10 000. */
  overrideIntervalMs?: number;
  /** An origin that served a robots.txt earlier in the run now answers 4xx: keep the last good
   *  policy (`keep-last`, default: a file flickering away must not open the site) or allow all
   *  (`allow`, the bare RFC reading). A policy-change is published either way. */
  onVanished?: 'keep-last' | 'allow';
  /** Where policies are shared and single-flighted. Default: a MemoryPolicyStore of maxOrigins. */
  store?: PolicyStore;
  /** What the fetched content is for: `search`, `ai-input` or `ai-train`. A URL whose robots.txt
   *  usage lines (Content-Usage, aipref drafts; Content-Signal) reserve it is refused with reason
   *  `usage-reserved` (not lifted by `override`). Default: none, usage is recorded only. */
  purpose?: Purpose;

  // --- politeness: the same names and defaults as the crawl's ---------------------------------
  /** Floor between the end of one response from a host and the next request to it, in ms, before
   *  jitter. Default 2 000. */
  minIntervalMs?: number;
  /** Largest random addition to the floor, as a fraction of it (0 to 1), drawn per gap so that
   *  crawlers do not fall into step. Default 0.2. */
  jitter?: number;
  /** A Crawl-delay longer than this (ms) blocks that host's requests through `gate.fetch` and the
   *  interceptor with RobotsBlockedError, reason `crawl-delay-too-long`, unless clampCrawlDelay.
   *  Default 60 000. */
  maxCrawlDelayMs?: number;
  /** Keep hosts whose Crawl-delay is over maxCrawlDelayMs, spaced at maxCrawlDelayMs. Default false. */
  clampCrawlDelay?: boolean;
  /** Back-off after a 429 or 503 without a usable Retry-After, in ms. Default 10 000. */
  defaultBackoffMs?: number;
  /** Longest Retry-After honoured, in ms; a longer one is cut to this. Default 3 600 000. */
  maxBackoffMs?: number;
  /** Where each host's slot is kept: in flight, last response end, back-off. Default: the
   *  `store`'s limiter when it has one (a Redis store's: `createRedisStores(...).limiter`), else
   *  one MemoryRateLimiter for the whole process (every gate and crawl in it keep one clock per
   *  host). */
  limiter?: RateLimiter;
  /** `false`: `gate.fetch` and the interceptor send at once, without waiting for the host's slot,
   *  and Crawl-delay (maxCrawlDelayMs included) and the override interval are the caller's to keep:
   *  for a caller that takes each host's slot from the same limiter itself, as the crawl does.
   *  robots.txt requests the gate makes still take their host's slot. Default true. */
  politeness?: boolean;
  /** Hosts (`api.example.com`, any port) or origins (`https://api.example.com:8443`), or a
   *  predicate on the URL, that robots.txt does not govern (a pipeline's own APIs): their requests
   *  pass unchecked and unspaced, each still published as a decision with reason `exempt`.
   *  @throws InvalidOptionError for an entry with a path, query or fragment (use a predicate). */
  exempt?: readonly string[] | ((url: URL) => boolean);
}

/** Every name RobotsGateOptions has, so a misspelt one (`minIntervalMS`) is refused instead of
 *  silently meaning the default. The type below fails to compile when a name is added there only. */
const OPTION_NAMES = [
  'userAgent', 'productToken', 'dispatcher', 'resolve', 'timeoutMs', 'maxBytes', 'maxRedirects', 'maxOrigins',
  'maxAgeMs', 'minAgeMs', 'retryMs', 'override', 'overrideIntervalMs', 'onVanished', 'store', 'purpose',
  'minIntervalMs', 'jitter', 'maxCrawlDelayMs', 'clampCrawlDelay', 'defaultBackoffMs', 'maxBackoffMs', 'limiter',
  'politeness', 'exempt',
] as const satisfies readonly (keyof RobotsGateOptions)[];
type Unlisted = Exclude<keyof RobotsGateOptions, (typeof OPTION_NAMES)[number]>;
const allListed: [Unlisted] extends [never] ? true : Unlisted = true;
void allListed;
const KNOWN: ReadonlySet<string> = new Set(OPTION_NAMES);

/**
 * Refuse an option name RobotsGate does not have, naming the closest one it has.
 * @throws InvalidOptionError (code `ERR_INVALID_OPTION`, `.option` the unknown name).
 */
export function checkOptionNames(o: unknown): void {
  if (typeof o !== 'object' || o === null) return; // the userAgent check says what is missing
  for (const name of Object.keys(o)) {
    if (KNOWN.has(name)) continue;
    const near = closest(name);
    throw new InvalidOptionError(
      name,
      near !== undefined
        ? `RobotsGate has no option ${JSON.stringify(name)} (did you mean ${near}?)`
        : `RobotsGate has no option ${JSON.stringify(name)}; its options are ${OPTION_NAMES.join(', ')}`,
    );
  }
}

/** The known name nearest to `name` (case aside, then by edit distance), when near enough to be
 *  a slip of the keyboard rather than another word: at most a third of its letters differ. */
function closest(name: string): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of OPTION_NAMES) {
    const d = editDistance(lower, known.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [known, d];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  if (a.length > 100 || b.length > 100) return Infinity; // no option name is this long
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

export interface ResolvedOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  maxOrigins: number;
  maxAgeMs: number;
  minAgeMs: number;
  retryMs: number;
  overrideIntervalMs: number;
  onVanished: 'keep-last' | 'allow';
  purpose: Purpose | undefined;
  minIntervalMs: number;
  jitter: number;
  maxCrawlDelayMs: number;
  clampCrawlDelay: boolean;
  defaultBackoffMs: number;
  maxBackoffMs: number;
  politeness: boolean;
}

function count(name: string, value: unknown, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new InvalidOptionError(name, `RobotsGate option ${name} must be a number ${range}, got ${String(value)}`);
  }
  return value;
}

function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidOptionError(name, `RobotsGate option ${name} must be true or false, got ${String(value)}`);
  return value;
}

function whole(name: string, value: number): number {
  if (!Number.isInteger(value)) throw new InvalidOptionError(name, `RobotsGate option ${name} must be a whole number, got ${value}`);
  return value;
}

/** The origin caches (lru-cache) allocate their slots up front: 10^9 origins would exhaust memory at
 *  construction, 10^6 costs tens of MB. */
export const MAX_ORIGINS = 1_000_000;

function envInterval(): number {
  const raw = process.env.ROBOTS_OVERRIDE_INTERVAL_MS;
  if (raw === undefined || raw.trim() === '') return 10_000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    throw new InvalidOptionError('overrideIntervalMs', `ROBOTS_OVERRIDE_INTERVAL_MS must be a number of ms >= 0, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** @throws InvalidOptionError (a RangeError, code `ERR_INVALID_OPTION`) naming the bad option. */
export function resolveOptions(o: RobotsGateOptions): ResolvedOptions {
  const override: unknown = o.override;
  if (override !== undefined && typeof override !== 'boolean' && !(Array.isArray(override) && override.every((h) => typeof h === 'string' && h !== ''))) {
    // `override: 'example.com'` (a string, not a list) must not be read as no override at all.
    throw new InvalidOptionError('override', `RobotsGate option override must be true, false or an array of host names, got ${JSON.stringify(override)}`);
  }
  if (o.onVanished !== undefined && o.onVanished !== 'keep-last' && o.onVanished !== 'allow') {
    throw new InvalidOptionError('onVanished', `RobotsGate option onVanished must be 'keep-last' or 'allow', got ${String(o.onVanished)}`);
  }
  if (o.purpose !== undefined && !PURPOSES.includes(o.purpose)) {
    throw new InvalidOptionError('purpose', `RobotsGate option purpose must be one of ${PURPOSES.join(', ')}, got ${JSON.stringify(o.purpose)}`);
  }
  const maxAgeMs = count('maxAgeMs', o.maxAgeMs, 86_400_000);
  return {
    timeoutMs: count('timeoutMs', o.timeoutMs, 10_000, 1, MAX_TIMEOUT_MS),
    maxBytes: count('maxBytes', o.maxBytes, 512_000, 1),
    maxRedirects: whole('maxRedirects', count('maxRedirects', o.maxRedirects, 5)),
    maxOrigins: whole('maxOrigins', count('maxOrigins', o.maxOrigins, 10_000, 1, MAX_ORIGINS)),
    maxAgeMs,
    minAgeMs: Math.min(count('minAgeMs', o.minAgeMs, 60_000), maxAgeMs),
    retryMs: count('retryMs', o.retryMs, 60_000),
    overrideIntervalMs: o.overrideIntervalMs === undefined ? envInterval() : count('overrideIntervalMs', o.overrideIntervalMs, 0),
    onVanished: o.onVanished ?? 'keep-last',
    purpose: o.purpose,
    minIntervalMs: count('minIntervalMs', o.minIntervalMs, 2_000),
    jitter: count('jitter', o.jitter, 0.2, 0, 1),
    maxCrawlDelayMs: count('maxCrawlDelayMs', o.maxCrawlDelayMs, 60_000),
    clampCrawlDelay: flag('clampCrawlDelay', o.clampCrawlDelay, false),
    defaultBackoffMs: count('defaultBackoffMs', o.defaultBackoffMs, DEFAULT_BACKOFF_MS),
    maxBackoffMs: count('maxBackoffMs', o.maxBackoffMs, MAX_BACKOFF_MS),
    politeness: flag('politeness', o.politeness, true),
  };
}
