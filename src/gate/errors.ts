// The gate's errors. Each has a stable `code` and the data a caller needs.
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

function blockedMessage(d: Decision): string {
  const robots = d.policy.robotsUrl;
  if (d.reason === 'unreachable') {
    return `robots.txt blocks ${d.url}: ${robots} is unreachable (${d.policy.status}), so every URL on ${d.origin} is disallowed until it can be fetched (RFC 9309 §2.3.1.4)`;
  }
  const rule = d.rule ? `"${d.rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${d.rule.pattern}" at line ${d.rule.line}` : 'no rule';
  const group = d.group ? ` (group user-agent ${d.group.userAgents.join(', ')})` : '';
  return `robots.txt disallows ${d.url}: rule ${rule} of ${robots}${group}${d.stale ? ' [stale copy]' : ''}`;
}

/** A User-Agent whose product token breaks RFC 9309 §2.2.1 (only letters, `_` and `-`). */
export class InvalidUserAgentError extends TypeError {
  readonly code = 'ERR_INVALID_USER_AGENT' as const;
  readonly userAgent: string;
  /** @param token the product token found; omit it when the whole string cannot be a header value. */
  constructor(userAgent: string, token?: string) {
    super(
      token === undefined
        ? `invalid userAgent ${JSON.stringify(userAgent)}: it cannot be sent as an HTTP header value (control characters, or characters above U+00FF, RFC 9110 §5.5)`
        : `invalid userAgent ${JSON.stringify(userAgent)}: its product token ${JSON.stringify(token)} must be letters, "_" and "-" only (RFC 9309 §2.2.1), e.g. "MyBot/1.0 (+https://example.com/bot)"`,
    );
    this.name = 'InvalidUserAgentError';
    this.userAgent = userAgent;
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
