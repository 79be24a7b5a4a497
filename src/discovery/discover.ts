// discoverSitemaps: from an origin's robots.txt `Sitemap:` lines to the URLs they list, breadth
// first through sitemap indexes. Each sitemap is read once (loops and self-listings are dropped),
// in scope only (sitemaps.org), under every cap, and each one gets a report and an audit row.
import { createHash } from 'node:crypto';
import type { AuditSink } from '../audit/types.js';
import { originOf } from '../fetcher/url.js';
import { defaultLimiter, pacerFor } from '../politeness/pacer.js';
import type { RateLimiter } from '../stores/types.js';
import { resolveDiscoverOptions, type DiscoverOptions, type ResolvedDiscoverOptions } from './options.js';
import { readSitemap, type DiscoveryGate, type ReadContext, type SitemapSource } from './read-sitemap.js';
import { absoluteHttpUrl, admit, scopeOf } from './scope.js';
import { sitemapRow } from './sitemap-row.js';
import type { DiscoveredUrl, DiscoveryStats, DropReason, SitemapReport } from './types.js';

interface Queued extends SitemapSource {
  /** Origins whose robots.txt vouches for this chain (cross-submission). */
  readonly vouched: readonly string[];
}

/**
 * The URLs an origin's sitemaps list, as an async iterable; `stats` counts as it goes.
 * Iterate it once. While a batch of one sitemap is being consumed, that sitemap's host slot is
 * held: add the URLs to a frontier, do not fetch from the same host inside the loop.
 */
export class SitemapDiscovery implements AsyncIterable<DiscoveredUrl> {
  readonly stats: DiscoveryStats = {
    sitemapsRead: 0,
    sitemapsFailed: 0,
    sitemapsBlocked: 0,
    sitemapsElsewhere: 0,
    urlsFound: 0,
    dropped: {},
    limits: {},
  };
  /** `scheme://host[:port]` discovered from. */
  readonly origin: string;
  readonly #gate: DiscoveryGate;
  readonly #o: ResolvedDiscoverOptions;
  readonly #options: DiscoverOptions;
  readonly #limiter: RateLimiter;
  readonly #seen = new Set<string>();
  readonly #perHost = new Map<string, number>();
  /** Every sitemap URL queued in this discovery: a second listing is a loop. */
  readonly #known = new Set<string>();
  #started = false;

  constructor(gate: DiscoveryGate, origin: string | URL, options: DiscoverOptions = {}) {
    this.#gate = gate;
    this.origin = originOf(origin);
    this.#o = resolveDiscoverOptions(options);
    this.#options = options;
    this.#limiter = options.limiter ?? gate.limiter ?? defaultLimiter();
  }

  [Symbol.asyncIterator](): AsyncIterator<DiscoveredUrl> {
    if (this.#started) throw new TypeError('a SitemapDiscovery is iterated once: call discoverSitemaps again');
    this.#started = true;
    return this.#run();
  }

  async *#run(): AsyncGenerator<DiscoveredUrl> {
    const robotsUrl = `${this.origin}/robots.txt`;
    const decision = await this.#gate.check(robotsUrl);
    const queue: Queued[] = [];
    for (const s of decision.policy.sitemaps) {
      const r = absoluteHttpUrl(s);
      if ('drop' in r) this.#drop(r.drop);
      else if (this.#known.has(r.url.href)) this.#drop('sitemap-loop');
      else if (queue.length >= this.#o.maxSitemapsPerOrigin) this.#drop('max-sitemaps');
      else {
        // A robots.txt may name a sitemap anywhere (cross-submission): its own origin vouches.
        this.#known.add(r.url.href);
        queue.push({ url: r.url.href, parentUrl: robotsUrl, advertisedBy: robotsUrl, depth: 1, vouched: [this.origin] });
      }
    }
    const ctx: ReadContext = {
      gate: this.#gate,
      pacer: pacerFor(this.#limiter),
      o: this.#o,
      signal: this.#options.signal,
      redirectTarget: (url) => {
        if (this.#known.has(url)) {
          this.#drop('sitemap-loop');
          return false;
        }
        this.#known.add(url);
        return true;
      },
    };
    for (let i = 0; i < queue.length; i++) {
      const q = queue[i]!;
      if (this.#options.skip?.has(q.url)) continue;
      if (this.#options.claim && !(await this.#options.claim(q.url))) {
        this.stats.sitemapsElsewhere++;
        continue;
      }
      const report: Partial<SitemapReport> = {};
      const dropped: Partial<Record<DropReason, number>> = {};
      const drop = (why: DropReason) => {
        dropped[why] = (dropped[why] ?? 0) + 1;
        this.#drop(why);
      };
      const scope = scopeOf(q.url, q.vouched);
      let urls = 0;
      let children = 0;
      const sitemapHost = new URL(q.url).host;
      const replayed = this.#options.replay?.get(q.url);
      const source = replayed !== undefined ? once(replayed) : readSitemap(ctx, q, report as never);
      try {
        for await (const batch of source) {
          if (replayed === undefined) this.#options.onEntries?.(q.url, batch);
          let full = false;
          for (const e of batch) {
            const r = admit(e.loc, scope);
            if ('drop' in r) {
              drop(r.drop);
              continue;
            }
            const href = r.url.href;
            if (e.kind === 'sitemap') {
              if (q.depth > this.#o.maxDepth) drop('too-deep');
              else if (this.#known.has(href)) drop('sitemap-loop');
              else if (queue.length >= this.#o.maxSitemapsPerOrigin) drop('max-sitemaps');
              else {
                this.#known.add(href);
                children++;
                queue.push({ url: href, parentUrl: q.url, advertisedBy: q.advertisedBy, depth: q.depth + 1, vouched: q.vouched });
              }
              continue;
            }
            if (this.#seen.has(href)) {
              drop('duplicate');
              continue;
            }
            const host = r.url.host;
            const n = this.#perHost.get(host) ?? 0;
            if (n >= this.#o.maxUrlsPerHost) {
              drop('max-urls-per-host');
              if (host === sitemapHost) full = true;
              continue;
            }
            this.#perHost.set(host, n + 1);
            this.#seen.add(href);
            urls++;
            this.stats.urlsFound++;
            yield {
              url: href,
              host,
              ...(e.lastmod !== undefined ? { lastmod: e.lastmod } : {}),
              ...(e.changefreq !== undefined ? { changefreq: e.changefreq } : {}),
              ...(e.priority !== undefined ? { priority: e.priority } : {}),
              sitemap: q.url,
              robotsUrl: q.advertisedBy,
              sampled: n < this.#o.minSample || sampleDraw(this.#o.sampleSeed, href) < this.#o.sampleFraction,
            };
          }
          // The host's total is reached: the rest of this sitemap would all be dropped.
          if (full) break;
        }
      } finally {
        // A replayed sitemap was settled, with its row, by the run that read it.
        if (replayed === undefined) this.#settle({ ...report, urls, sitemaps: children, dropped } as SitemapReport);
      }
    }
  }

  #drop(why: DropReason): void {
    this.stats.dropped[why] = (this.stats.dropped[why] ?? 0) + 1;
  }

  #settle(report: SitemapReport): void {
    if (report.outcome === 'read') this.stats.sitemapsRead++;
    else if (report.outcome === 'blocked') this.stats.sitemapsBlocked++;
    else this.stats.sitemapsFailed++;
    if (report.limit) this.stats.limits[report.limit] = (this.stats.limits[report.limit] ?? 0) + 1;
    const audit: AuditSink | undefined = this.#options.audit;
    // Stopped by the run's own signal before it was read whole (the read threw its AbortError).
    const interrupted = this.#options.signal?.aborted === true && report.outcome !== 'read' && report.outcome !== 'blocked';
    if (audit) audit.recordAttempt(sitemapRow(report, this.#options.runId ?? '', interrupted));
    this.#options.onSitemap?.(report);
  }
}

async function* once<T>(batch: T): AsyncGenerator<T> {
  yield batch;
}

/** A fixed draw in [0, 1) per (seed, URL): the same seed samples the same URLs in every run. */
export function sampleDraw(seed: string, url: string): number {
  return createHash('sha1').update(seed).update('\0').update(url).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * Discover the URLs `origin`'s sitemaps list: its robots.txt `Sitemap:` lines (fetched through
 * the gate), then the sitemaps and nested indexes they name (sitemaps.org protocol). Every sitemap
 * request is decided by the robots.txt of its own origin and spaced by its host's interval.
 * @param origin an origin or any URL on it.
 * @throws TypeError for an origin that is not http(s); InvalidOptionError for a bad option.
 *   Iterating rejects only with an AbortError (options.signal) or an AuditWriteError.
 */
export function discoverSitemaps(gate: DiscoveryGate, origin: string | URL, options: DiscoverOptions = {}): SitemapDiscovery {
  return new SitemapDiscovery(gate, origin, options);
}
