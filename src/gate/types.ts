// The gate layer's public shapes. Times are milliseconds unless a name says otherwise.
import type { GroupRef, RuleRef } from '../parser/types.js';
import type { PolicyRecord } from '../stores/types.js';
import type { UsageVerdict } from '../usage/index.js';

/**
 * Why a decision came out as it did: a closed set.
 * - `allowed-by-rule`      an Allow rule was the longest match (RFC 9309 §2.2.2)
 * - `no-matching-rule`     no rule matched, or no group applies: allowed (§2.2.2)
 * - `disallowed-by-rule`   a Disallow rule was the longest match
 * - `robots-txt`           the URL is /robots.txt itself, always allowed (§2.2.2)
 * - `unavailable`          robots.txt answered 4xx (not 429): no file, all allowed (§2.3.1.3)
 * - `too-many-redirects`   more than maxRedirects hops or a loop: treated as unavailable (§2.3.1.2)
 * - `unreachable`          5xx, 429, timeout, network or TLS failure, body cut short: all disallowed (§2.3.1.4)
 * - `overridden`           disallowed, but fetched under an explicit override (see Decision.overridden)
 * - `usage-reserved`       allowed by robots.txt, but its usage lines reserve the gate's `purpose`
 *                          (Content-Usage / Content-Signal): not fetched. Only with the `purpose` option.
 * - `exempt`               the URL's host or origin is in the gate's `exempt` option: not checked, not spaced
 * - `crawl-delay-too-long` (only on a RobotsBlockedError from gate.fetch or the interceptor) the
 *                          group's Crawl-delay is over `maxCrawlDelayMs` and `clampCrawlDelay` is off
 */
export type DecisionReason =
  | 'allowed-by-rule'
  | 'no-matching-rule'
  | 'disallowed-by-rule'
  | 'robots-txt'
  | 'unavailable'
  | 'too-many-redirects'
  | 'unreachable'
  | 'overridden'
  | 'usage-reserved'
  | 'exempt'
  | 'crawl-delay-too-long';

/** Which robots.txt governed a decision: enough to find and re-check the exact text later. */
export interface PolicyStamp {
  /** `<origin>/robots.txt` as first requested. */
  readonly robotsUrl: string;
  /** The URL the body finally came from, after redirects (same as robotsUrl without redirects). */
  readonly finalUrl: string;
  /** HTTP status of the final response, or the network error's code (`ETIMEDOUT`, `ECONNREFUSED`, `ENOTFOUND`, …). */
  readonly status: number | string;
  /** For an unreachable robots.txt from a network failure: the error's message (a proxy's refusal,
   *  a TLS failure, …), so the status code is not all that is said. */
  readonly error?: string;
  /** sha256 of the body bytes that were parsed (after content decoding; the first maxBytes, cut
   *  back to a line break when longer) as lowercase hex, so the stored text re-hashes to it;
   *  null when there was no body to parse (unavailable, unreachable). */
  readonly sha256: string | null;
  /** ISO 8601 time the robots.txt response was received. */
  readonly fetchedAt: string;
  /** ISO 8601 time after which the copy is refetched (RFC 9309 §2.4). */
  readonly expiresAt: string;
  readonly sitemaps: readonly string[];
  /** True when the body looked like an HTML page rather than robots.txt (parsed anyway, as the RFC says). */
  readonly html?: boolean;
  /** True when the body was longer than maxBytes and only its first maxBytes were parsed (§2.5). */
  readonly truncated?: boolean;
  /** For a stale copy: what the failed refetch got (HTTP status or error code). */
  readonly refetchStatus?: number | string;
}

/** The gate's answer for one URL. */
export interface Decision {
  /** The URL as checked (normalised absolute form). */
  readonly url: string;
  /** `scheme://host[:port]` with the host lower-cased and punycoded, default ports folded. */
  readonly origin: string;
  /** May the request be sent? (True for overridden decisions: they are sent.) */
  readonly allowed: boolean;
  readonly reason: DecisionReason;
  /** The deciding rule (for `overridden`: the rule that would have blocked). */
  readonly rule: RuleRef | null;
  readonly group: GroupRef | null;
  readonly policy: PolicyStamp;
  /** An expired copy was used because the refetch failed (RFC 9309 §2.4). */
  readonly stale: boolean;
  /** Disallowed by robots.txt, but let through by the `override` option. */
  readonly overridden: boolean;
  /** Crawl-delay in SECONDS from the group that applied, if any. */
  readonly crawlDelaySeconds?: number;
  /** The product token the rules were matched against (RFC 9309 §2.2.1): the gate's token or, with
   *  fallback tokens, the first one this robots.txt names (the first of the list when none is). */
  readonly productToken: string;
  /** What robots.txt's usage lines (Content-Usage, Content-Signal) say of this URL for this
   *  crawler, per purpose; undefined when the file has none (or there is no file). Recorded beside
   *  access, never part of it unless the gate has a `purpose`. */
  readonly usage?: UsageVerdict;
}

/** Published on `robots-gate:policy-change` and passed to listeners. */
export interface PolicyChange {
  readonly origin: string;
  readonly oldSha256: string | null;
  readonly newSha256: string | null;
  /** ISO 8601 time the new policy was received: the boundary between the two. */
  readonly at: string;
  readonly oldStatus: number | string;
  readonly newStatus: number | string;
}

/**
 * The PolicyRecord the gate stores: the shared record plus what it needs to keep a good copy
 * through an outage. Extra fields are plain data, so any store that serialises records keeps them.
 */
export interface GatePolicyRecord extends PolicyRecord {
  /** The body is an older good copy kept because the refetch failed: unreachable (RFC 9309 §2.4)
   *  or, with onVanished 'keep-last', a 4xx. `lastStatus` says what the refetch got. */
  readonly stale?: boolean;
  /** The kept copy stands in for a 4xx (the file vanished), not for an outage. */
  readonly vanished?: boolean;
  /** Status (or error code) of the latest fetch when it differs from the policy in force. */
  readonly lastStatus?: number | string;
  /** For a stale record: when the kept body was received (ms since epoch). `fetchedAt` is then the
   *  failed attempt, so a shared store sees a new record, and this is what the stamp shows. */
  readonly bodyFetchedAt?: number;
  /** Consecutive failed fetches: the retry backoff grows with it. */
  readonly failures?: number;
  /** The body was longer than maxBytes; only the first maxBytes were kept. */
  readonly truncated?: boolean;
}

/** One request of `gate.fetch`: the first URL or a redirect hop, with the decision that let it go
 *  (or stopped it) and, once it came back, the response status. */
export interface FetchHop {
  readonly url: string;
  /** The URL that redirected here; null for the first request. */
  readonly parentUrl: string | null;
  readonly decision: Decision;
  /** HTTP status of this hop's response; absent when the hop was blocked (nothing was sent). */
  readonly status?: number;
  /** Where this hop redirects to (resolved absolute URL), when it does. */
  readonly location?: string;
}
