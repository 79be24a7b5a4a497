// The discovery layer's shapes: what a sitemap read yields and reports. A sitemap is a hint: its
// URLs go to the frontier to be decided by robots.txt like any other, and its <lastmod>,
// <changefreq> and <priority> are the site's claims, recorded, never obeyed.
// Times are ISO 8601 strings in results, milliseconds in options.
import type { Decision } from '../gate/types.js';

/** How a sitemap's body was read (sitemaps.org §"Sitemap file format", §"Other formats"). */
export type SitemapFormat = 'urlset' | 'sitemapindex' | 'text' | 'rss' | 'atom' | 'html' | 'unknown';

/**
 * Why a listed URL (or a listed child sitemap) was not taken: a closed set, counted per reason.
 * - `invalid-url`        does not parse as a URL (or is empty)
 * - `relative-url`       not absolute; the protocol asks for fully qualified URLs
 * - `unsupported-scheme` not http: or https: (`javascript:`, `mailto:`, `ftp:`, …)
 * - `credentials`        has user:password@ (never sent, never recorded)
 * - `too-long`           over 2,048 characters (sitemaps.org: "less than 2,048 characters")
 * - `other-host`         another host than the sitemap's, not cross-submitted by that host's robots.txt
 * - `outside-path`       the sitemap's host, but above the sitemap's directory (sitemaps.org §"Sitemap file location")
 * - `duplicate`          listed before in this discovery
 * - `max-urls-per-host`  the host's total was reached
 * - `too-deep`           a sitemap index nested deeper than `maxDepth`
 * - `sitemap-loop`       a child sitemap already read in this discovery (an index listing itself, or a loop)
 * - `max-sitemaps`       more sitemaps than `maxSitemapsPerOrigin`
 */
export type DropReason =
  | 'invalid-url'
  | 'relative-url'
  | 'unsupported-scheme'
  | 'credentials'
  | 'too-long'
  | 'other-host'
  | 'outside-path'
  | 'duplicate'
  | 'max-urls-per-host'
  | 'too-deep'
  | 'sitemap-loop'
  | 'max-sitemaps';

/**
 * A cap that stopped a sitemap early (what was parsed before it is kept).
 * - `max-urls`    50,000 entries in one sitemap (the protocol's limit; `maxUrlsPerSitemap`)
 * - `max-bytes`   50 MB uncompressed (52,428,800 bytes; `maxBytesPerSitemap`)
 * - `max-ratio`   decompressed/compressed over `maxRatio`: a gzip bomb
 * - `timeout`     the fetch (body included) took longer than `timeoutMs`
 * - `max-depth`   XML no sitemap is shaped like: elements nested over 64 deep, or one with over 256
 *                 attributes (each held in memory until it closes: a nesting bomb)
 */
export type SitemapLimit = 'max-urls' | 'max-bytes' | 'max-ratio' | 'timeout' | 'max-depth';

/** One URL a sitemap listed and discovery kept: a candidate for the frontier, nothing more. */
export interface DiscoveredUrl {
  /** Absolute http(s) URL without fragment or credentials. */
  readonly url: string;
  /** `URL.host`: the politeness key. */
  readonly host: string;
  /** The site's claims, verbatim (trimmed): never used to skip a URL. */
  readonly lastmod?: string;
  readonly changefreq?: string;
  readonly priority?: string;
  /** The sitemap that listed it. */
  readonly sitemap: string;
  /** The robots.txt whose Sitemap line led here (through any indexes). */
  readonly robotsUrl: string;
  /** Chosen for the freshness sample (seeded; see DiscoverOptions.sampleFraction). */
  readonly sampled: boolean;
}

/** The record of one sitemap, read or not: what the audit row of kind `sitemap` is built from. */
export interface SitemapReport {
  readonly url: string;
  /** The robots.txt or sitemap index that listed this sitemap. */
  readonly parentUrl: string;
  /** The robots.txt that advertised the chain this sitemap is part of. */
  readonly advertisedBy: string;
  /** 1 for a sitemap named in robots.txt, 2 for one listed by that index, … */
  readonly depth: number;
  /** `read`: fetched and parsed (maybe partly); `blocked`: robots.txt disallows it (nothing
   *  sent); `error`: no usable answer (4xx, 5xx, network, timeout before any byte). */
  readonly outcome: 'read' | 'blocked' | 'error';
  /** The gate's decision for the (last) request; absent only when the URL could not be checked. */
  readonly decision?: Decision;
  readonly status: number | null;
  /** ms since epoch. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly format: SitemapFormat;
  /** Body bytes after decompression. */
  readonly bytes: number;
  /** sha256 (hex) of those bytes; null when nothing was read. */
  readonly sha256: string | null;
  readonly gzip: boolean;
  /** Entries kept from this sitemap (URLs, or child sitemaps for an index). */
  readonly urls: number;
  readonly sitemaps: number;
  readonly dropped: Readonly<Partial<Record<DropReason, number>>>;
  readonly limit: SitemapLimit | null;
  /** Parse trouble (malformed XML, HTML instead of a sitemap), the first few, verbatim. */
  readonly problems: readonly string[];
  /** Network error code and message, or `http-404` and the like. */
  readonly error: string | null;
  /** Response headers (lower-case names), when it was answered. */
  readonly headers: Readonly<Record<string, string>> | null;
  /** Wait before the request and what it came from (the host's politeness). */
  readonly intervalMs: number | null;
  readonly waitReason: string | null;
}

/** Running counts of a discovery (for progress lines and the summary). */
export interface DiscoveryStats {
  sitemapsRead: number;
  sitemapsFailed: number;
  sitemapsBlocked: number;
  /** Sitemaps another worker of the fleet read (`claim` said no). */
  sitemapsElsewhere: number;
  urlsFound: number;
  readonly dropped: Partial<Record<DropReason, number>>;
  readonly limits: Partial<Record<SitemapLimit, number>>;
}
