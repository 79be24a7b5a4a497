// One sitemap request, as any other request: decided by the robots.txt of its own origin, sent
// only when its host's slot opens (the same RateLimiter the crawl uses), every redirect hop gated
// again (gate.fetch), and its body read as a stream under every cap at once.
import { createHash } from 'node:crypto';
import { locationAsSent } from '../fetcher/url.js';
import type { GateFetchInit } from '../gate/gated-fetch.js';
import type { Decision } from '../gate/types.js';
import { hostInterval } from '../politeness/interval.js';
import type { Pacer } from '../politeness/pacer.js';
import type { RateLimiter } from '../stores/types.js';
import type { ResolvedDiscoverOptions } from './options.js';
import { decodedChunks, sitemapDecoder, type BodyMeter } from './sitemap-body.js';
import { SitemapParser, type SitemapEntry } from './sitemap-parser.js';
import type { SitemapFormat, SitemapLimit, SitemapReport } from './types.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** The part of RobotsGate discovery uses. */
export interface DiscoveryGate {
  readonly userAgent?: string;
  readonly overrideIntervalMs?: number;
  /** Where the gate keeps each host's slot; discovery takes its slots there too. */
  readonly limiter?: RateLimiter;
  check(url: string): Promise<Decision>;
  fetch(input: string, init?: GateFetchInit): Promise<Response>;
}

/** The ratio cap is looked at only past this many decompressed bytes: a small file's gzip header
 *  alone makes a high ratio. */
const RATIO_GRACE_BYTES = 1_048_576;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const ACCEPT = 'application/xml, text/xml, application/rss+xml, application/atom+xml, text/plain;q=0.9, */*;q=0.5';

export interface ReadContext {
  readonly gate: DiscoveryGate;
  readonly pacer: Pacer;
  readonly o: ResolvedDiscoverOptions;
  readonly signal: AbortSignal | undefined;
  /** Asked before a redirect hop to `url` is followed: false when this discovery has that sitemap
   *  already (listed, or reached by another redirect), which is then not requested again; true
   *  claims it. Fifty children redirecting to their index read the index fifty-one times. */
  readonly redirectTarget?: (url: string) => boolean;
}

/** Where a sitemap came from (for its report and its row). */
export interface SitemapSource {
  readonly url: string;
  readonly parentUrl: string;
  readonly advertisedBy: string;
  readonly depth: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Fetch and parse one sitemap; yields its entries in batches (one per body chunk) as they parse.
 * `report` is complete once the generator has finished (or been returned from).
 * Never throws for anything the site does: HTTP errors, network errors, bad bytes and caps are
 * reported. Throws only an AbortError when `ctx.signal` aborts.
 */
export async function* readSitemap(ctx: ReadContext, source: SitemapSource, report: Partial<Mutable<SitemapReport>>): AsyncGenerator<SitemapEntry[]> {
  const { gate, o } = ctx;
  Object.assign(report, {
    ...source,
    outcome: 'error',
    status: null,
    startedAt: Date.now(),
    endedAt: Date.now(),
    format: 'unknown' as SitemapFormat,
    bytes: 0,
    sha256: null,
    gzip: false,
    urls: 0,
    sitemaps: 0,
    dropped: {},
    limit: null,
    problems: [],
    error: null,
    headers: null,
    intervalMs: null,
    waitReason: null,
  } satisfies Partial<SitemapReport>);
  let url = source.url;
  for (let hop = 0; ; hop++) {
    const decision = await gate.check(url);
    report.decision = decision;
    if (!decision.allowed) {
      report.outcome = 'blocked';
      report.endedAt = Date.now();
      return;
    }
    const interval = hostInterval(
      { crawlDelaySeconds: decision.crawlDelaySeconds, underOverride: decision.overridden },
      { minIntervalMs: o.minIntervalMs, overrideIntervalMs: gate.overrideIntervalMs ?? 10_000 },
      1,
    );
    if (hop === 0) {
      report.intervalMs = interval.ms;
      report.waitReason = interval.reason;
    }
    // The host's slot on the limiter every door shares: the robots.txt request the check may just
    // have made to this host took it too, so the sitemap request keeps the interval after it.
    const slot = await ctx.pacer.take(new URL(url).host, interval, ctx.signal, url);
    try {
      // In a fleet the slot is the shared limiter's, and the robots.txt request went through the
      // gate's own one, which the shared limiter never saw: keep the interval after it by its stamp
      // (when it came from this host; a copy another worker fetched is stamped when it ended too).
      const afterRobots = Date.parse(decision.policy.fetchedAt) + interval.ms - Date.now();
      if (afterRobots > 0 && sameHost(decision.policy.robotsUrl, url)) await sleep(afterRobots, undefined, ctx.signal ? { signal: ctx.signal } : undefined);
      if (hop === 0) report.startedAt = Date.now();
      // The time cap runs from the send, not from the wait for the slot (a Crawl-delay is not the site being slow).
      const timeout = AbortSignal.timeout(o.timeoutMs);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await gate.fetch(url, { signal, headers: { accept: ACCEPT }, redirect: 'manual', politeness: false, decision });
      } catch (err) {
        ctx.signal?.throwIfAborted();
        if (timeout.aborted) report.limit = 'timeout';
        report.error = errorText(err, timeout);
        return;
      }
      const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
      if (location === null) {
        yield* parseResponse(ctx, res, timeout, report);
        return;
      }
      // Each hop is a request of its own: decided by its own origin's robots.txt, on its own host's slot.
      await res.body?.cancel().catch(() => {});
      report.status = res.status;
      let next: URL | undefined;
      try {
        next = new URL(locationAsSent(location), url);
      } catch {
        next = undefined;
      }
      if (next === undefined || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
        report.error = `http-${res.status}: a Location that is no http(s) URL`;
        return;
      }
      if (hop >= MAX_REDIRECTS) {
        report.error = `http-${res.status}: more than ${MAX_REDIRECTS} redirects`;
        return;
      }
      next.hash = '';
      next.username = next.password = '';
      if (ctx.redirectTarget && !ctx.redirectTarget(next.href)) {
        // Not an error of the site's (a sitemap listed as http: and as https: redirects so): what
        // it points to is read once, under its own listing or hop.
        report.outcome = 'read';
        report.problems = [`redirects to ${next.href}, a sitemap this discovery reads once: not followed (sitemap-loop)`];
        return;
      }
      url = next.href;
    } finally {
      report.endedAt = Date.now();
      await slot.release(report.endedAt);
    }
  }
}

async function* parseResponse(ctx: ReadContext, res: Response, timeout: AbortSignal, report: Partial<Mutable<SitemapReport>>): AsyncGenerator<SitemapEntry[]> {
  const { o } = ctx;
  report.status = res.status;
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  report.headers = headers;
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel().catch(() => {});
    report.error = `http-${res.status}`;
    report.endedAt = Date.now();
    return;
  }
  report.outcome = 'read';
  let batch: SitemapEntry[] = [];
  let entries = 0;
  let limit: SitemapLimit | null = null;
  const parser = new SitemapParser((e) => {
    if (++entries > o.maxUrlsPerSitemap) {
      limit = 'max-urls';
      return;
    }
    batch.push(e);
  });
  const problems: string[] = [];
  const hash = createHash('sha256');
  // Chosen from the first bytes (sitemapDecoder): UTF-8 unless the file says otherwise.
  let decoder: TextDecoder | undefined;
  const meter: BodyMeter = { gzip: false, compressed: 0 };
  let bytes = 0;
  let complete = false;
  try {
    try {
      for await (let chunk of decodedChunks(res, meter)) {
        if (bytes + chunk.byteLength > o.maxBytesPerSitemap) {
          chunk = chunk.subarray(0, o.maxBytesPerSitemap - bytes);
          limit = 'max-bytes';
        }
        bytes += chunk.byteLength;
        hash.update(chunk);
        decoder ??= sitemapDecoder(chunk, problems);
        parser.write(decoder.decode(chunk, { stream: true }));
        if (batch.length > 0) {
          const out = batch;
          batch = [];
          yield out;
        }
        if (meter.compressed !== undefined && meter.compressed > 0 && bytes > RATIO_GRACE_BYTES && bytes / meter.compressed > o.maxRatio) {
          limit ??= 'max-ratio';
        }
        if (parser.capped) limit ??= 'max-depth';
        if (limit !== null || parser.done) break;
      }
      complete = limit === null && !parser.done;
    } catch (err) {
      ctx.signal?.throwIfAborted();
      if (timeout.aborted) limit = 'timeout';
      else problems.push(`body cut short after ${bytes} bytes: ${errorText(err, timeout)}`);
    }
    // A body stopped by a cap is not finished XML: closing the parser would only add "unclosed
    // tag" noise to what is already reported as the cap.
    if (complete) {
      if (decoder) parser.write(decoder.decode());
      parser.end();
      if (batch.length > 0) yield batch;
    }
  } finally {
    // Also when the caller stops early (a host's total reached): the report says what was read.
    report.format = parser.format ?? 'unknown';
    report.bytes = bytes;
    report.sha256 = bytes > 0 ? hash.digest('hex') : null;
    report.gzip = meter.gzip;
    report.limit = limit;
    problems.unshift(...parser.problems);
    if (parser.problemCount > parser.problems.length) problems.push(`… and ${parser.problemCount - parser.problems.length} more`);
    report.problems = problems;
    report.endedAt = Date.now();
  }
}

function errorText(err: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'ETIMEDOUT: no complete response within the time limit';
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code ?? e.name ?? 'ERR_NETWORK';
  return `${code}: ${e.cause?.message ?? e.message ?? String(err)}`;
}

function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).host === new URL(b).host;
  } catch {
    return false;
  }
}
