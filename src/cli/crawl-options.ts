// The crawl command's options as commander hands them over, and their checks: numbers in range,
// host names, combinations that need one another; and why a URL list gives nothing to crawl.
import fs from 'node:fs';
import { PURPOSES } from '../usage/index.js';
import { count as plural } from './plural.js';

export interface CrawlCliOptions {
  userAgent: string;
  productToken: string[];
  out: string;
  concurrency: string;
  minInterval: string;
  maxCrawlDelay: string;
  clampCrawlDelay?: boolean;
  override: string[];
  overrideInterval?: string;
  resolve: string[];
  recheckAfter?: string;
  resume?: boolean;
  auditJsonl?: string;
  json?: boolean;
  timeout: string;
  maxPageBytes: string;
  robotsTimeout: string;
  progressInterval: string;
  redis?: string;
  run?: string;
  worker?: string;
  shareRobotsAcrossRuns?: boolean;
  browser?: boolean;
  screenshot?: boolean;
  chromium?: string;
  purpose?: string;
  sitemaps?: boolean;
  maxUrlsPerHost: string;
}

/** A bad option value or combination: exit code 2 with its message. */
export class UsageError extends Error {}

/** Node timers hold at most 2^31 - 1 ms (24.8 days); a longer one fires after 1 ms, which turned
 *  a huge --timeout into an immediate failure and a huge interval into a busy loop. */
const MAX_MS = 2_147_483_647;
function count(name: string, raw: string | undefined, min: number, max = MAX_MS): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${name} must be a number >= ${min} and <= ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** The numeric options, checked. */
export interface CrawlNumbers {
  concurrency: number;
  minIntervalMs: number;
  maxCrawlDelaySeconds: number;
  timeoutMs: number;
  progressMs: number;
  robotsTimeoutMs: number;
  maxPageBytes: number;
  recheckAfterMs: number | undefined;
  overrideIntervalMs: number | undefined;
  maxUrlsPerHost: number;
}

/** Check every option before anything is touched. @throws UsageError */
export function checkCrawlOptions(opts: CrawlCliOptions): CrawlNumbers {
  const maxUrlsPerHost = count('--max-urls-per-host', opts.maxUrlsPerHost, 0, Number.MAX_SAFE_INTEGER)!;
  const concurrency = count('--concurrency', opts.concurrency, 1, 10_000)!;
  if (!Number.isInteger(concurrency)) throw new UsageError(`--concurrency must be a whole number, got ${JSON.stringify(opts.concurrency)}`);
  const minIntervalMs = count('--min-interval', opts.minInterval, 0)!;
  // A day: a host asking for more is skipped (or clamped to this), never waited on for weeks.
  const maxCrawlDelaySeconds = count('--max-crawl-delay', opts.maxCrawlDelay, 0, 86_400)!;
  const timeoutMs = count('--timeout', opts.timeout, 1)!;
  const robotsTimeoutMs = count('--robots-timeout', opts.robotsTimeout, 1)!;
  const maxPageBytes = count('--max-page-bytes', opts.maxPageBytes, 1, 2 ** 31)!;
  const progressMs = count('--progress-interval', opts.progressInterval, 10)!;
  const recheckAfterMs = count('--recheck-after', opts.recheckAfter, 0);
  const overrideIntervalMs = count('--override-interval', opts.overrideInterval, 0);
  if (opts.redis && !opts.run) throw new UsageError('--redis needs --run NAME (the name the workers share)');
  // Without Redis there is no fleet to share a run with: ignoring them would hide a forgotten --redis.
  if (!opts.redis && opts.run !== undefined) throw new UsageError('--run needs --redis URL (it names a fleet run shared through Redis)');
  if (!opts.redis && opts.shareRobotsAcrossRuns) throw new UsageError('--share-robots-across-runs needs --redis URL (the runs share robots.txt copies through Redis)');
  // A value that is no host name (a URL, a wildcard) would match no host: the user would think
  // a host overridden that is not, and find it blocked.
  for (const h of opts.override) {
    if (!/^(?:[A-Za-z0-9_.~%!$&'()+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(h)) {
      let hint = '';
      try {
        // A URL gives its host; a Unicode name its ASCII (punycode) form, which hosts match in.
        const host = new URL(h.includes('://') ? h : `http://${h}`).host;
        if (host && host !== h) hint = ` (did you mean ${host}?)`;
      } catch {
        // not a URL either
      }
      throw new UsageError(`--override takes a host name such as example.com (a port optional), got ${JSON.stringify(h)}${hint}`);
    }
  }
  if (opts.worker !== undefined && !/^[^\x00-\x1f\x7f]{1,100}$/.test(opts.worker)) {
    throw new UsageError(`--worker must be 1 to 100 printable characters, got ${JSON.stringify(opts.worker)}`);
  }
  if ((opts.screenshot || opts.chromium) && !opts.browser) throw new UsageError('--screenshot and --chromium need --browser');
  if (opts.purpose !== undefined && !(PURPOSES as readonly string[]).includes(opts.purpose)) {
    throw new UsageError(`--purpose must be one of ${PURPOSES.join(', ')}, got ${JSON.stringify(opts.purpose)}`);
  }
  // Found only at the first row's write, a directory was an audit failure (exit 3) after --out was made.
  if (opts.auditJsonl !== undefined && isDirectory(opts.auditJsonl)) throw new UsageError(`--audit-jsonl ${opts.auditJsonl} is a directory: give it a file (created if missing, appended to)`);
  return { concurrency, minIntervalMs, maxCrawlDelaySeconds, timeoutMs, progressMs, robotsTimeoutMs, maxPageBytes, recheckAfterMs, overrideIntervalMs, maxUrlsPerHost };
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * Why a list of `lines` lines, `invalid` of them not http(s) URLs, holds no URL, in words:
 * "1 line, all comments or blank" (the rest of the lines being skipped by design, a count of the
 * non-URL lines alone read "0 lines" for a list that plainly had some).
 */
export function noUrlWhy(lines: number, invalid: number): string {
  if (lines === 0) return 'it is empty';
  if (invalid === 0) return `${plural(lines, 'line')}, all comments or blank`;
  if (invalid === lines) return `${plural(lines, 'line')}, none an http(s) URL`;
  return `${plural(lines, 'line')}: ${invalid} not an http(s) URL, the rest comments or blank`;
}
