// From one robots.txt fetch to the record kept for the origin: freshness (RFC 9309 §2.4), and what
// happens to a good copy when the next fetch fails (kept, marked stale) or the file vanishes.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { RobotsFetchResult } from '../fetcher/robots-fetcher.js';
import { decodeRobotsText, parseRobotsTxt } from '../parser/index.js';
import type { PolicyRecord } from '../stores/types.js';
import type { GatePolicyRecord } from './types.js';
import type { ResolvedOptions } from './options.js';

/** How long a good copy may stand in for a file that cannot be fetched: RFC 9309 §2.3.1.4 names
 *  30 days as a reasonably long period of unreachability. */
export const KEEP_GOOD_COPY_MS = 30 * 24 * 3600 * 1000;

/**
 * How long after its `failures`-th failure in a row a file that could not be fetched is asked
 * again (ms): `retryMs` doubled at each failure, at least the server's Retry-After (ms), at most
 * `maxMs`. The schedule of an unreachable robots.txt, and of the crawl's TDMRep file.
 */
export function failureRetryMs(failures: number, retryMs: number, maxMs: number, retryAfterMs: number | undefined): number {
  return Math.min(maxMs, Math.max(retryMs * 2 ** Math.min(failures - 1, 30), retryAfterMs ?? 0));
}

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
  const retryAt = () => now + failureRetryMs(failures, o.retryMs, o.maxAgeMs, result.retryAfterMs);
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
    return { ...base, ...(result.error ? { error: result.error } : {}), kind: 'unreachable', sha256: null, failures, expiresAt: retryAt() };
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
    ...(result.redirectLoop !== undefined ? { redirectLoop: result.redirectLoop } : {}),
  };
}

/**
 * The local record with its body again, from the store's copy of the same file, so it can stand in
 * as the good copy when a refetch fails (RFC 9309 §2.3.1.4). Without the text (the store has lost it)
 * it cannot: the store's record, or none, is the previous one then.
 */
export function withBody(local: GatePolicyRecord | undefined, stored: GatePolicyRecord | undefined): GatePolicyRecord | undefined {
  if (local === undefined || local.kind !== 'parsed' || local.body !== undefined) return local;
  if (stored !== undefined && stored.sha256 === local.sha256 && stored.body !== undefined) return { ...local, body: stored.body };
  return undefined;
}

/** The later of two records by fetch time. */
export function newest(a: GatePolicyRecord | undefined, b: GatePolicyRecord | undefined): GatePolicyRecord | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.fetchedAt > a.fetchedAt ? b : a;
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

/** A fetched robots.txt as the audit keeps it (the audit's PolicyRow). */
export interface PolicySnapshot {
  readonly sha256: string;
  readonly origin: string;
  readonly robotsUrl: string;
  readonly finalUrl: string;
  readonly status: number | string;
  /** ISO 8601: when this body was fetched. */
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

/**
 * Whether a kept text (see bodyText) is the file whose octets hash to `sha256` (hex): `exact` when
 * the text's UTF-8 is those octets; `decoded` when they were UTF-16 with a BOM, or invalid UTF-8 whose
 * octets the text keeps as %XX escapes (with or without a BOM), and re-encoding them gives the key back;
 * false when no reading of the text gives the key: the text is not the one that was fetched. One file
 * reads false though unaltered: invalid UTF-8 that also writes an escape such as `%E9` literally where
 * the octet would not be valid UTF-8 (the decoder's escape and the author's are then the same text).
 */
export function textHashesTo(text: string, sha256: string): 'exact' | 'decoded' | false {
  const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const utf8 = Buffer.from(text, 'utf8');
  if (hash(utf8) === sha256) return 'exact';
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const candidates = [utf16WithBom(text, 'le'), utf16WithBom(text, 'be')];
  if (/%[89A-Fa-f][0-9A-Fa-f]/.test(text)) {
    for (const octets of unescapedOctets(text)) candidates.push(octets, Buffer.concat([bom, octets]));
  }
  candidates.push(Buffer.concat([bom, utf8]));
  return candidates.some((c) => hash(c) === sha256) ? 'decoded' : false;
}

function utf16WithBom(text: string, endian: 'le' | 'be'): Buffer {
  const le = Buffer.from('\ufeff' + text, 'utf16le');
  return endian === 'le' ? le : le.swap16();
}

/**
 * The octets an invalid-UTF-8 file may have had, undoing decodeBody's %XX escapes: every escape of an
 * octet >= 0x80 undone, then the same with the escapes that would have formed valid UTF-8 (which the
 * decoder never escapes, so the file wrote them) put back, until nothing changes.
 */
function unescapedOctets(text: string): Buffer[] {
  const parts = text.split(/(%[89A-Fa-f][0-9A-Fa-f])/);
  const literal = new Set<number>();
  const build = () => {
    const chunks: Buffer[] = [];
    const rawAt: number[] = [];
    let at = 0;
    parts.forEach((p, i) => {
      const raw = i % 2 === 1 && !literal.has(i);
      const b = raw ? Buffer.from([parseInt(p.slice(1), 16)]) : Buffer.from(p, 'utf8');
      if (raw) rawAt.push(at, i);
      chunks.push(b);
      at += b.length;
    });
    return { octets: Buffer.concat(chunks), rawAt };
  };
  const all = build().octets;
  for (let round = 0; round < 4; round++) {
    const { octets, rawAt } = build();
    const valid = validOctets(octets);
    let changed = false;
    for (let k = 0; k < rawAt.length; k += 2) {
      if (valid[rawAt[k]!]) {
        literal.add(rawAt[k + 1]!);
        changed = true;
      }
    }
    if (!changed) return round === 0 ? [all] : [all, octets];
  }
  return [all, build().octets];
}

/** For each octet, whether decodeBody's left-to-right scan takes it as part of a valid sequence. */
function validOctets(b: Buffer): Uint8Array {
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; ) {
    const n = sequenceLength(b, i);
    if (n === 0) {
      i++;
      continue;
    }
    out.fill(1, i, i + n);
    i += n;
  }
  return out;
}

function sequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  return n && isUtf8(b.subarray(i, i + n)) ? n : 0;
}
