// discoverSitemaps options: documented, defaulted and checked in one place.
import type { AuditSink } from '../audit/types.js';
import { InvalidOptionError } from '../gate/errors.js';
import type { RateLimiter } from '../stores/types.js';
import type { SitemapEntry } from './sitemap-parser.js';
import type { DiscoveredUrl, SitemapReport } from './types.js';

export interface DiscoverOptions {
  /** Entries read from one sitemap at most (sitemaps.org: 50,000). Default 50,000. */
  maxUrlsPerSitemap?: number;
  /** Uncompressed bytes read from one sitemap at most (sitemaps.org: 50 MB = 52,428,800). */
  maxBytesPerSitemap?: number;
  /** URLs kept per host at most, over all of an origin's sitemaps. Default 100,000. */
  maxUrlsPerHost?: number;
  /** Sitemaps fetched per origin at most (an index may list 50,000). Default 1,000. */
  maxSitemapsPerOrigin?: number;
  /** Levels of sitemap indexes followed: robots.txt names level 1; the children of an index at
   *  a level above this are dropped (`too-deep`). Default 3. */
  maxDepth?: number;
  /** Decompressed / compressed bytes at most, once past 1 MiB decompressed: a gzip bomb stops
   *  there. Real sitemaps compress 10 to 40 times. Default 200. */
  maxRatio?: number;
  /** One sitemap fetch, redirects and body included, in ms. Default 30,000. */
  timeoutMs?: number;
  /** Per-host politeness: the floor between the end of one response and the next request (ms);
   *  a Crawl-delay (s) above it wins. Default 2,000. */
  minIntervalMs?: number;
  /** Where host slots are taken: the same limiter as the crawl's (a RedisRateLimiter in a fleet)
   *  so sitemap, robots.txt and page requests keep one interval. Default: the gate's `limiter`. */
  limiter?: RateLimiter;
  /** Fraction (0 to 1) of a host's URLs chosen for the freshness sample. Default 0.05. */
  sampleFraction?: number;
  /** A host's first URLs are sampled whatever the fraction, so a small site has a sample too. Default 5. */
  minSample?: number;
  /** Seed of the sample: the same seed picks the same URLs. Default 'robots-gate'. */
  sampleSeed?: string;
  /** Called once per sitemap URL before it is fetched; false: someone else reads it (a fleet's
   *  shared set), it is skipped here. Default: every sitemap is read. */
  claim?: (sitemapUrl: string) => Promise<boolean>;
  /** Sitemaps settled in an earlier run (`--resume`): not fetched again. */
  skip?: ReadonlySet<string>;
  /** Sitemaps settled in an earlier run with the entries they held (see `onEntries`): those
   *  entries are used again (child sitemaps followed, URLs yielded), nothing is fetched. */
  replay?: ReadonlyMap<string, readonly SitemapEntry[]>;
  /** Each batch of raw entries as it is read from a sitemap (before scope checks): to keep them
   *  for a later `replay`. */
  onEntries?: (sitemapUrl: string, entries: readonly SitemapEntry[]) => void;
  /** Each settled sitemap, once. */
  onSitemap?: (report: SitemapReport) => void;
  /** When given, each sitemap gets an audit row of kind `sitemap` here (with `runId`). */
  audit?: AuditSink;
  runId?: string;
  signal?: AbortSignal;
}

export interface ResolvedDiscoverOptions {
  maxUrlsPerSitemap: number;
  maxBytesPerSitemap: number;
  maxUrlsPerHost: number;
  maxSitemapsPerOrigin: number;
  maxDepth: number;
  maxRatio: number;
  timeoutMs: number;
  minIntervalMs: number;
  sampleFraction: number;
  minSample: number;
  sampleSeed: string;
}

export type { DiscoveredUrl };

function num(name: string, v: unknown, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw new InvalidOptionError(name, `discoverSitemaps option ${name} must be a number from ${min} to ${max}, got ${String(v)}`);
  }
  return v;
}

/** @throws InvalidOptionError (a RangeError, code `ERR_INVALID_OPTION`) naming the bad option. */
export function resolveDiscoverOptions(o: DiscoverOptions): ResolvedDiscoverOptions {
  return {
    maxUrlsPerSitemap: num('maxUrlsPerSitemap', o.maxUrlsPerSitemap, 50_000, 1),
    maxBytesPerSitemap: num('maxBytesPerSitemap', o.maxBytesPerSitemap, 52_428_800, 1),
    maxUrlsPerHost: num('maxUrlsPerHost', o.maxUrlsPerHost, 100_000, 0),
    maxSitemapsPerOrigin: num('maxSitemapsPerOrigin', o.maxSitemapsPerOrigin, 1_000, 1),
    maxDepth: num('maxDepth', o.maxDepth, 3, 1, 10),
    maxRatio: num('maxRatio', o.maxRatio, 200, 1),
    timeoutMs: num('timeoutMs', o.timeoutMs, 30_000, 1, 2_147_483_647),
    minIntervalMs: num('minIntervalMs', o.minIntervalMs, 2_000, 0),
    sampleFraction: num('sampleFraction', o.sampleFraction, 0.05, 0, 1),
    minSample: num('minSample', o.minSample, 5, 0),
    sampleSeed: o.sampleSeed ?? 'robots-gate',
  };
}
