// One sitemap request, as any other request: decided by the robots.txt of its own origin, sent
// only when its host's slot opens (the same RateLimiter the crawl uses), every redirect hop gated
// again (gate.fetch), and its body read as a stream under every cap at once.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GateFetchInit } from '../gate/gated-fetch.js';
import type { Decision } from '../gate/types.js';
import { hostInterval } from '../politeness/interval.js';
import type { Lease, RateLimiter } from '../stores/types.js';
import type { ResolvedDiscoverOptions } from './options.js';
import { decodedChunks, type BodyMeter } from './sitemap-body.js';
import { SitemapParser, type SitemapEntry } from './sitemap-parser.js';
import type { SitemapFormat, SitemapLimit, SitemapReport } from './types.js';

/** The part of RobotsGate discovery uses. */
export interface DiscoveryGate {
  readonly userAgent?: string;
  readonly overrideIntervalMs?: number;
  check(url: string): Promise<Decision>;
  fetch(input: string, init?: GateFetchInit): Promise<Response>;
}

/** The ratio cap is looked at only past this many decompressed bytes: a small file's gzip header
 *  alone makes a high ratio. */
const RATIO_GRACE_BYTES = 1_048_576;
const ACCEPT = 'application/xml, text/xml, application/rss+xml, application/atom+xml, text/plain;q=0.9, */*;q=0.5';

export interface ReadContext {
  readonly gate: DiscoveryGate;
  readonly limiter: RateLimiter;
  readonly o: ResolvedDiscoverOptions;
  readonly signal: AbortSignal | undefined;
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
  const decision = await gate.check(source.url);
  report.decision = decision;
  if (!decision.allowed) {
    report.outcome = 'blocked';
    report.endedAt = Date.now();
    return;
  }
  const host = new URL(source.url).host;
  const interval = hostInterval(
    { crawlDelaySeconds: decision.crawlDelaySeconds, underOverride: decision.overridden },
    { minIntervalMs: o.minIntervalMs, overrideIntervalMs: gate.overrideIntervalMs ?? 10_000 },
    1,
  );
  report.intervalMs = interval.ms;
  report.waitReason = interval.reason;
  const lease = await takeSlot(ctx.limiter, host, interval.ms, o.timeoutMs + 10_000, ctx.signal);
  let endedAt = Date.now();
  try {
    // The robots.txt request the check may just have made went to this host too: the site saw
    // it, so the first sitemap request keeps the interval after it.
    if (new URL(decision.policy.robotsUrl).host === host) {
      const wait = Date.parse(decision.policy.fetchedAt) + interval.ms - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal: ctx.signal });
    }
    report.startedAt = Date.now();
    yield* fetchAndParse(ctx, source.url, report);
    endedAt = Date.now();
  } finally {
    report.endedAt = endedAt = Math.max(endedAt, report.endedAt ?? 0);
    await ctx.limiter.release(lease, endedAt);
  }
}

async function* fetchAndParse(ctx: ReadContext, url: string, report: Partial<Mutable<SitemapReport>>): AsyncGenerator<SitemapEntry[]> {
  const { o } = ctx;
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await ctx.gate.fetch(url, {
      signal,
      headers: { accept: ACCEPT },
      maxRedirects: 5,
      onHop: (h) => {
        report.decision = h.decision;
        if (h.status === undefined) report.outcome = 'blocked';
      },
    });
  } catch (err) {
    ctx.signal?.throwIfAborted();
    report.endedAt = Date.now();
    if (report.outcome !== 'blocked') {
      if (timeout.aborted) report.limit = 'timeout';
      report.error = errorText(err, timeout);
    }
    return;
  }
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
  const decoder = new TextDecoder('utf-8');
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
        parser.write(decoder.decode(chunk, { stream: true }));
        if (batch.length > 0) {
          const out = batch;
          batch = [];
          yield out;
        }
        if (meter.compressed !== undefined && meter.compressed > 0 && bytes > RATIO_GRACE_BYTES && bytes / meter.compressed > o.maxRatio) {
          limit ??= 'max-ratio';
        }
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
      parser.write(decoder.decode());
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

/** Wait for the host's slot (one request in flight per host, the interval after the last). */
async function takeSlot(limiter: RateLimiter, host: string, intervalMs: number, leaseMs: number, signal: AbortSignal | undefined): Promise<Lease> {
  for (;;) {
    const r = await limiter.tryAcquire(host, intervalMs, leaseMs);
    if (r.ok) return r.lease;
    await sleep(Math.max(1, r.retryAt - Date.now()), undefined, { signal });
  }
}

function errorText(err: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'ETIMEDOUT: no complete response within the time limit';
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code ?? e.name ?? 'ERR_NETWORK';
  return `${code}: ${e.cause?.message ?? e.message ?? String(err)}`;
}
