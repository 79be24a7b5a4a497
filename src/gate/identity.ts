// Who the crawler is: the User-Agent header it sends and the product token(s) robots.txt groups are
// matched against (RFC 9309 §2.2.1). One check for every door: the gate's constructor, and the CLI
// when it decides from a local file without a gate.
import { isBrowserProduct, isValidProductToken, namesProduct, productsOf, readProductToken } from '../parser/index.js';
import type { RobotsTxt } from '../parser/types.js';
import { InvalidUserAgentError } from './errors.js';

/** RFC 9110 §5.5 field-value characters: HTAB, SP, VCHAR, obs-text. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The identity a gate decides as. */
export interface CrawlerIdentity {
  readonly userAgent: string;
  /** The tokens in match order: the first one some group names decides (RFC 9309 §2.2.1). */
  readonly tokens: readonly string[];
  /** `given`: from the productToken option; `derived`: read from the User-Agent string. */
  readonly source: 'given' | 'derived';
  /** For a derived token, the text it was read from: `compatible; GPTBot/1.1`, or `MyBot/2.1`. */
  readonly readFrom?: string;
}

/**
 * Check a User-Agent and the optional productToken, and give the tokens in force.
 * @param userAgent the header sent: non-empty, sendable as an HTTP field value (RFC 9110 §5.5).
 * @param productToken a token, or an ordered fallback list (`['MyBot-News', 'MyBot']`); each must be
 *   letters, digits, `_`, `-` and occur in userAgent as a product (`TOKEN/…`, `TOKEN;`, `TOKEN)`, a bare
 *   product outside comments, or the whole string), case-insensitively. Omitted: read from userAgent
 *   (`productToken()` of 'robots-gate/parser').
 * @throws InvalidUserAgentError (code `ERR_INVALID_USER_AGENT`) naming what is wrong: `problem` is
 *   `empty`, `header`, `not-a-token`, `no-crawler` (a `Mozilla/…` string naming no crawler after
 *   `compatible;`), `browser-product` (a given token such as `Gecko` or `compatible`) or
 *   `not-in-user-agent`.
 */
export function crawlerIdentity(userAgent: unknown, productToken?: unknown): CrawlerIdentity {
  if (typeof userAgent !== 'string' || userAgent.trim() === '') throw new InvalidUserAgentError(String(userAgent ?? ''), 'empty');
  // The header must be sendable: otherwise every robots.txt request fails in undici, and every
  // origin would be reported unreachable (so disallowed) for a fault of ours, not the site's.
  if (!HEADER_VALUE.test(userAgent)) throw new InvalidUserAgentError(userAgent, 'header');
  if (productToken === undefined) {
    const r = readProductToken(userAgent);
    // A bare browser string names no crawler: matching it as `mozilla` would apply only the `*`
    // groups while the site names this crawler under another name, which looks like compliance.
    if (r.from === 'mozilla') throw new InvalidUserAgentError(userAgent, 'no-crawler', r.token);
    if (!isValidProductToken(r.token)) throw new InvalidUserAgentError(userAgent, 'not-a-token', r.token);
    return Object.freeze({ userAgent, tokens: Object.freeze([r.token]), source: 'derived', readFrom: r.text });
  }
  const list: unknown[] = typeof productToken === 'string' ? [productToken] : Array.isArray(productToken) ? productToken : [productToken];
  if (list.length === 0) throw new InvalidUserAgentError(userAgent, 'not-a-token', '');
  for (const t of list) {
    if (typeof t !== 'string' || !isValidProductToken(t)) throw new InvalidUserAgentError(userAgent, 'not-a-token', String(t), true);
    // A browser, engine or platform product (Gecko, compatible) would match the `*` groups while the
    // site names the crawler elsewhere in the same header.
    if (isBrowserProduct(t)) throw new InvalidUserAgentError(userAgent, 'browser-product', t, true);
    // A token the header does not carry would let a crawler obey rules written for someone else
    // while the site sees (and names) another name.
    if (!namesProduct(userAgent, t)) throw new InvalidUserAgentError(userAgent, 'not-in-user-agent', t, true);
  }
  return Object.freeze({ userAgent, tokens: Object.freeze(list.slice() as string[]), source: 'given' });
}

/**
 * The token one robots.txt is matched against (RFC 9309 §2.2.1 with fallback tokens): the first of
 * `tokens` some group names, as Googlebot-News falls back to Googlebot's group; the first token when
 * none is named (then the `*` groups apply), or when there is no file.
 */
export function tokenInForce(robots: { names(token: string): boolean } | null, tokens: readonly string[]): string {
  if (robots === null || tokens.length === 1) return tokens[0]!;
  return tokens.find((t) => robots.names(t)) ?? tokens[0]!;
}

/**
 * Products of the User-Agent that a file names when it names none of the crawler's tokens
 * (`MyCrawler/1.0 BadBot/1.0` against `User-agent: BadBot`): then the `*` group decides, which is
 * likely not what the site meant for this crawler. Each with the line of the first user-agent line
 * naming it. Empty when some group names one of the tokens.
 */
export function otherNamedProducts(robots: RobotsTxt, identity: CrawlerIdentity): { product: string; line: number }[] {
  if (identity.tokens.some((t) => robots.names(t))) return [];
  const skip = new Set(identity.tokens.map((t) => t.toLowerCase()));
  const out: { product: string; line: number }[] = [];
  for (const product of productsOf(identity.userAgent)) {
    const key = product.toLowerCase();
    if (skip.has(key) || !robots.names(product)) continue;
    skip.add(key);
    let line = 0;
    for (const g of robots.groups) {
      const ua = g.userAgents.find((u) => u.token === key);
      if (ua) {
        line = ua.line;
        break;
      }
    }
    out.push({ product, line });
  }
  return out;
}
