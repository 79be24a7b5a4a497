// The gate's errors. Each has a stable `code` and the data a caller needs.
import { likelyCrawlerProducts } from '../parser/product-token.js';
import type { Decision } from './types.js';

/**
 * A request the gate refused: robots.txt disallows the URL (or is unreachable, which disallows all).
 * Thrown (or passed to the undici handler) before any byte is sent to the URL.
 */
export class RobotsBlockedError extends Error {
  readonly code = 'ERR_ROBOTS_BLOCKED' as const;
  readonly decision: Decision;
  constructor(decision: Decision) {
    super(blockedMessage(decision));
    this.name = 'RobotsBlockedError';
    this.decision = decision;
  }
}

/**
 * The robots.txt file a decision's rules came from: the policy's finalUrl, with the URL asked for
 * after it when a redirect led there (RFC 9309 §2.3.1.2), e.g.
 * `http://target.test/robots.txt (asked at http://rr.test/robots.txt)`.
 */
export function policySource(policy: Decision['policy']): string {
  const { robotsUrl, finalUrl } = policy;
  return finalUrl && finalUrl !== robotsUrl ? `${finalUrl} (asked at ${robotsUrl})` : robotsUrl;
}

function blockedMessage(d: Decision): string {
  const robots = policySource(d.policy);
  if (d.reason === 'crawl-delay-too-long') {
    return `robots.txt blocks ${d.url}: ${robots} asks for a Crawl-delay of ${d.crawlDelaySeconds} s, over this gate's maxCrawlDelayMs (set clampCrawlDelay: true to keep the host at the maximum)`;
  }
  if (d.reason === 'unreachable') {
    const why = d.policy.error ? `${d.policy.status}: ${d.policy.error}` : String(d.policy.status);
    return `robots.txt blocks ${d.url}: ${d.policy.robotsUrl} is unreachable (${why}), so every URL on ${d.origin} is disallowed until it can be fetched (RFC 9309 §2.3.1.4)`;
  }
  const rule = d.rule ? `"${d.rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${d.rule.pattern}" at line ${d.rule.line}` : 'no rule';
  const group = d.group ? ` (group user-agent ${d.group.userAgents.join(', ')})` : '';
  return `robots.txt disallows ${d.url}: rule ${rule} of ${robots}${group}${d.stale ? ' [stale copy]' : ''}`;
}

/** What is wrong with a crawler's identity (see {@link InvalidUserAgentError}). */
export type UserAgentProblem = 'empty' | 'header' | 'not-a-token' | 'no-crawler' | 'not-in-user-agent' | 'browser-product';

/**
 * A User-Agent (or productToken) that names no crawler robots.txt groups could match (RFC 9309 §2.2.1),
 * or a header that cannot be sent (RFC 9110 §5.5). `problem` says which:
 * - `empty`: no User-Agent;
 * - `header`: control characters or characters above U+00FF;
 * - `not-a-token`: the token (read, or given as productToken) is not letters, digits, `_` and `-`;
 * - `no-crawler`: a `Mozilla/…` browser string with no product after `compatible;`: pass productToken;
 * - `not-in-user-agent`: the productToken given does not occur in the User-Agent as a product;
 * - `browser-product`: the productToken given is a browser's or platform's product (`Mozilla`,
 *   `AppleWebKit`, `Gecko`, `compatible`, …), which every browser-style header carries: no site
 *   names a crawler by it, so the crawler's own group would be skipped.
 */
export class InvalidUserAgentError extends TypeError {
  readonly code = 'ERR_INVALID_USER_AGENT' as const;
  readonly userAgent: string;
  readonly problem: UserAgentProblem;
  /** The token concerned (read from the User-Agent, or given), when there is one. */
  readonly productToken: string | undefined;
  /** @param given the token came from the productToken option, not from the User-Agent. */
  constructor(userAgent: string, problem: UserAgentProblem, token?: string, given = false) {
    super(userAgentMessage(userAgent, problem, token, given));
    this.name = 'InvalidUserAgentError';
    this.userAgent = userAgent;
    this.problem = problem;
    this.productToken = token;
  }
}

function userAgentMessage(ua: string, problem: UserAgentProblem, token: string | undefined, given: boolean): string {
  const q = JSON.stringify;
  switch (problem) {
    case 'empty':
      return 'RobotsGate needs options.userAgent: the User-Agent header, e.g. "MyBot/1.0 (+https://example.com/bot)"';
    case 'header':
      return `invalid userAgent ${q(ua)}: it cannot be sent as an HTTP header value (control characters, or characters above U+00FF, RFC 9110 §5.5)`;
    case 'not-a-token':
      return given
        ? `invalid productToken ${q(token)} for userAgent ${q(ua)}: a product token is letters, digits, "_" and "-" (RFC 9309 §2.2.1), e.g. "MyBot"`
        : `invalid userAgent ${q(ua)}: its product token ${q(token)} must be letters, digits, "_" and "-" (RFC 9309 §2.2.1), e.g. "MyBot/1.0 (+https://example.com/bot)"`;
    case 'no-crawler': {
      // Suggest the crawler's name when the header carries one outside `compatible;` (`… AI2Bot (+url)`,
      // `… Safari/604.1 (Applebot/0.1; +url)`): "MyBot" would send the reader guessing at a name
      // they have in front of them.
      const likely = likelyCrawlerProducts(ua)[0];
      const hint = likely === undefined ? 'e.g. productToken: "MyBot"' : `likely productToken: ${q(likely)}, the crawler this header carries`;
      return `userAgent ${q(ua)} names no crawler: it is a browser-style "Mozilla/…" string with no "compatible; Name/version" product, so robots.txt groups could only match it as "Mozilla" (RFC 9309 §2.2.1); pass productToken, the name sites write in their User-agent lines, ${hint}`;
    }
    case 'browser-product':
      return `productToken ${q(token)} names a browser or platform, not a crawler: every browser-style User-Agent carries it, and no site's User-agent lines name a crawler by it (RFC 9309 §2.2.1); pass the crawler's own name, e.g. "GPTBot" in ${q(ua)}`;
    case 'not-in-user-agent':
      return `productToken ${q(token)} does not occur in userAgent ${q(ua)} as a product ("${token}/1.0", "${token};", "${token})" or the whole string): a site must be able to tell from the header which of its User-agent lines the crawler obeys (RFC 9309 §2.2.1)`;
  }
}

/** gate.fetch met more redirects than its limit. A TypeError, as fetch's own redirect failures are. */
export class TooManyRedirectsError extends TypeError {
  readonly code = 'ERR_TOO_MANY_REDIRECTS' as const;
  /** The URL whose response would have been one redirect too many. */
  readonly url: string;
  constructor(url: string, limit: number) {
    super(`too many redirects (more than ${limit}) from ${url}`);
    this.name = 'TooManyRedirectsError';
    this.url = url;
  }
}

/**
 * `gate.close()` was called while this request waited for its host's politeness slot (or for the
 * robots.txt request of its check, itself waiting for that slot), or before the request was made:
 * nothing was sent for it. Not a TypeError: nothing is wrong with the request or the network, the
 * gate was shut down under it (or before it).
 */
export class GateClosedError extends Error {
  readonly code = 'ERR_GATE_CLOSED' as const;
  /** @param afterClose the call was made after gate.close(), so it never waited: it was refused. */
  constructor(afterClose = false) {
    super(
      afterClose
        ? 'the RobotsGate is closed: this request was made after gate.close() and was not sent'
        : 'the RobotsGate was closed while this request waited for its host\'s slot: it was not sent',
    );
    this.name = 'GateClosedError';
  }
}

/**
 * `err` as a call made after gate.close() reports it: a GateClosedError (bare, or as the cause of
 * fetch's `TypeError: fetch failed`) becomes the after-close one, since the wait it names began,
 * and ended, after the close; any other error is returned as it is.
 */
export function closedBeforeCall(err: unknown): unknown {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return err instanceof GateClosedError || cause instanceof GateClosedError ? new GateClosedError(true) : err;
}

/** A RobotsGate option (or the ROBOTS_OVERRIDE_INTERVAL_MS variable behind one) out of range. */
export class InvalidOptionError extends RangeError {
  readonly code = 'ERR_INVALID_OPTION' as const;
  /** The option's name. */
  readonly option: string;
  constructor(option: string, message: string) {
    super(message);
    this.name = 'InvalidOptionError';
    this.option = option;
  }
}
