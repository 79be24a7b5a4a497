// From one robots.txt fetch to the record kept for the origin: freshness (RFC 9309 §2.4), and what
// happens to a good copy when the next fetch fails (kept, marked stale) or the file vanishes.
import { isUtf8 } from 'node:buffer';
import type { RobotsFetchResult } from '../fetcher/robots-fetcher.js';
import { decodeRobotsText, parseRobotsTxt } from '../parser/index.js';
import type { PolicyRecord } from '../stores/types.js';
import type { GatePolicyRecord } from './types.js';
import type { ResolvedOptions } from './options.js';

/** How long a good copy may stand in for a file that cannot be fetched: RFC 9309 §2.3.1.4 names
 *  30 days as a reasonably long period of unreachability. */
export const KEEP_GOOD_COPY_MS = 30 * 24 * 3600 * 1000;

/**
 * The record for `origin` after `result`, given the record in force before (if any).
 * - 2xx: the new file; fresh for min(maxAgeMs, max(Cache-Control max-age, minAgeMs)).
 * - unreachable with a good copy younger than 30 days: that copy, `stale`, retried with backoff.
 * - 4xx after a good copy, onVanished 'keep-last': that copy, `stale` and `vanished`, retried with backoff.
 * - otherwise the bare outcome: unavailable (cached like a file) or unreachable (retried with backoff).
 */
export function recordFromFetch(
  origin: string,
  result: RobotsFetchResult,
  previous: GatePolicyRecord | undefined,
  o: ResolvedOptions,
): GatePolicyRecord {
  const now = result.fetchedAt;
  const failures = (previous?.failures ?? 0) + 1;
  const retryAt = () => now + Math.min(o.maxAgeMs, Math.max(o.retryMs * 2 ** Math.min(failures - 1, 30), result.retryAfterMs ?? 0));
  const base = { origin, robotsUrl: result.robotsUrl, finalUrl: result.finalUrl, status: result.status, fetchedAt: now };

  if (result.kind === 'parsed') {
    const age = result.maxAgeMs === undefined ? o.maxAgeMs : Math.min(o.maxAgeMs, Math.max(result.maxAgeMs, o.minAgeMs));
    return {
      ...base,
      kind: 'parsed',
      body: bodyText(result.bytes!),
      sha256: result.sha256,
      expiresAt: now + age,
      ...(result.html ? { html: true } : {}),
      ...(result.truncated ? { truncated: true } : {}),
    };
  }
  const bodyFetchedAt = previous?.bodyFetchedAt ?? previous?.fetchedAt ?? now;
  const good = previous?.kind === 'parsed' && now - bodyFetchedAt < KEEP_GOOD_COPY_MS ? previous : undefined;
  const kept = { stale: true, lastStatus: result.status, failures, fetchedAt: now, bodyFetchedAt };
  if (result.kind === 'unreachable') {
    if (good) return { ...good, ...kept, vanished: false, expiresAt: retryAt() };
    return { ...base, kind: 'unreachable', sha256: null, failures, expiresAt: retryAt() };
  }
  if (good && o.onVanished === 'keep-last') {
    return { ...good, ...kept, vanished: true, expiresAt: retryAt() };
  }
  const age = result.maxAgeMs === undefined ? o.maxAgeMs : Math.min(o.maxAgeMs, Math.max(result.maxAgeMs, o.minAgeMs));
  return {
    ...base,
    kind: 'unavailable',
    sha256: null,
    expiresAt: now + age,
    ...(result.redirectLimit ? { redirectLimit: true } : {}),
  };
}

/** The policy a record says this origin has, for change detection: the body hash, or null for no
 *  file; undefined when the record observed nothing new (an outage behind a kept copy). */
export function observedSha256(r: GatePolicyRecord): string | null | undefined {
  if (r.stale) return r.vanished ? null : undefined;
  return r.sha256;
}

/**
 * The body as the text the record keeps (stores hold text). Valid UTF-8 stays byte for byte what
 * the server sent (a BOM included, which the parser reports). Anything else is decoded as the parser
 * decodes bytes: a UTF-16 file with a BOM as UTF-16 (read as UTF-8 it would be no rules at all, and
 * the site would open), invalid octets as %XX escapes (toString('utf8') would make them U+FFFD, and
 * a Latin-1 rule would match nothing).
 */
function bodyText(bytes: Buffer): string {
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  return utf16 || !isUtf8(bytes) ? decodeRobotsText(bytes) : bytes.toString('utf8');
}

/** A fetched robots.txt as the audit keeps it (the shape of the audit's PolicyRow; times ISO 8601). */
export interface PolicySnapshot {
  readonly sha256: string;
  readonly origin: string;
  readonly robotsUrl: string;
  readonly finalUrl: string;
  readonly status: number | string;
  readonly fetchedAt: string;
  readonly sitemaps: readonly string[];
  readonly body: string;
}

/** The text of a record the gate reports (its `policy` event) for the audit, with its Sitemap
 *  lines; undefined when it has no body (unavailable, unreachable). One builder for every door's
 *  audit: the crawl, Crawlee and the DevTools endpoint. */
export function policySnapshot(r: PolicyRecord): PolicySnapshot | undefined {
  if (r.sha256 === null || r.body === undefined) return undefined;
  let sitemaps: readonly string[] = [];
  try {
    sitemaps = parseRobotsTxt(r.body, { url: r.finalUrl }).sitemaps;
  } catch {
    // The text is kept whatever it holds; sitemaps are a convenience.
  }
  return {
    sha256: r.sha256,
    origin: r.origin,
    robotsUrl: r.robotsUrl,
    finalUrl: r.finalUrl,
    status: r.status,
    fetchedAt: new Date(r.fetchedAt).toISOString(),
    sitemaps,
    body: r.body,
  };
}
