// The crawler's identity on the command line: --user-agent (the header sent) and --product-token
// (the name robots.txt groups are matched against), checked as the gate checks them but reported in
// the CLI's words, and said back: which token decided, where it came from, and when the file names
// this crawler under another of the names its header carries.
import { InvalidUserAgentError } from '../gate/errors.js';
import { crawlerIdentity, otherNamedProducts, tokenInForce, type CrawlerIdentity } from '../gate/identity.js';
import { likelyCrawlerProducts } from '../parser/product-token.js';
import type { RobotsTxt } from '../parser/types.js';

export const PRODUCT_TOKEN_HELP =
  'the name robots.txt groups are matched against, when it is not the one --user-agent gives; it must appear in --user-agent as NAME/…, NAME; or NAME); repeatable: the first one a file names decides';

/** A bad --user-agent or --product-token; the message is for the person at the terminal. */
export class IdentityUsageError extends Error {}

/** @throws IdentityUsageError in CLI words (exit 2 for every command). */
export function cliIdentity(userAgent: string | undefined, productTokens: readonly string[]): CrawlerIdentity {
  try {
    return crawlerIdentity(userAgent ?? '', productTokens.length ? productTokens : undefined);
  } catch (err) {
    if (!(err instanceof InvalidUserAgentError)) throw err;
    throw new IdentityUsageError(usageWords(err, productTokens.length > 0));
  }
}

function usageWords(err: InvalidUserAgentError, given: boolean): string {
  const ua = JSON.stringify(err.userAgent);
  const t = err.productToken ?? '';
  switch (err.problem) {
    case 'empty':
      return '--user-agent is empty: give the User-Agent header your crawler sends, e.g. --user-agent "MyBot/1.0 (+https://example.com/bot)"';
    case 'header':
      return `--user-agent ${ua} cannot be sent as an HTTP header (control characters, or characters above U+00FF)`;
    case 'not-a-token':
      return given
        ? `--product-token ${JSON.stringify(t)} is not a product token: letters, digits, "_" and "-" only (RFC 9309 §2.2.1)`
        : /^\s*mozilla\b/i.test(err.userAgent)
          ? // A browser-style string: the token was read after `compatible;`, not from its start.
            `--user-agent ${ua} names ${JSON.stringify(t)} after "compatible;", which is not a product token (letters, digits, "_" and "-", RFC 9309 §2.2.1); pass --product-token NAME, the name sites write in User-agent lines for your crawler`
          : `--user-agent ${ua} starts with ${JSON.stringify(t)}, which is not a product token (letters, digits, "_" and "-", RFC 9309 §2.2.1); start it with your crawler's name ("MyBot/1.0 (+https://example.com/bot)"), or pass --product-token NAME`;
    case 'no-crawler': {
      const why = `--user-agent ${ua} names no crawler: it is a browser-style "Mozilla/…" string without "compatible; Name/version", so robots.txt groups could only match it as "Mozilla".`;
      // The header often carries the crawler's name outside `compatible;` (`… AI2Bot (+url)`): say it.
      const likely = likelyCrawlerProducts(err.userAgent)[0];
      return likely === undefined
        ? `${why} Pass --product-token NAME, the name sites write in User-agent lines for your crawler (it must appear in --user-agent)`
        : `${why} It carries ${JSON.stringify(likely)}: if that is your crawler, pass --product-token ${likely}, the name sites write in User-agent lines for it`;
    }
    case 'browser-product':
      return `--product-token ${t} names a browser or platform, not a crawler: every browser-style header carries it and no site names a crawler by it, so your crawler's own User-agent group would be skipped. Pass your crawler's own name (the one before "/version" after "compatible;")`;
    case 'not-in-user-agent':
      return `--product-token ${t} does not appear in --user-agent ${ua} as a product ("${t}/1.0", "${t};" or "${t})"): a site could not tell from the header that its "User-agent: ${t}" lines are the ones you obey; add it to --user-agent`;
  }
}

/** Which token decided and where it came from, as `check --json`, `explain --json` and the tester give it. */
export interface TokenReport {
  /** The token the rules were matched against. */
  readonly productToken: string;
  /** `product-token`: given with --product-token; `user-agent`: read from --user-agent. */
  readonly productTokenSource: 'product-token' | 'user-agent';
  /** For a token read from --user-agent: the text it was read from (`compatible; GPTBot/1.1`). */
  readonly productTokenReadFrom?: string;
}

export function tokenReport(identity: CrawlerIdentity, used: string): TokenReport {
  return identity.source === 'given'
    ? { productToken: used, productTokenSource: 'product-token' }
    : { productToken: used, productTokenSource: 'user-agent', productTokenReadFrom: identity.readFrom! };
}

/** `GPTBot (read from "compatible; GPTBot/1.1" in --user-agent)`, `MyBot (--product-token; MyBot-News is not named here)`. */
export function tokenPhrase(identity: CrawlerIdentity, used: string): string {
  if (identity.source === 'derived') return `${used} (read from "${identity.readFrom}" in --user-agent)`;
  if (identity.tokens.length === 1) return `${used} (given by --product-token)`;
  const skipped = identity.tokens.slice(0, identity.tokens.indexOf(used));
  return `${used} (given by --product-token${skipped.length ? `; ${skipped.join(', ')} ${skipped.length > 1 ? 'are' : 'is'} not named in this file` : ''})`;
}

/** The token `identity` is matched against in `robots`. */
export function usedToken(identity: CrawlerIdentity, robots: RobotsTxt | null): string {
  return tokenInForce(robots, identity.tokens);
}

/**
 * Warnings for a file that names none of the crawler's tokens but names another product its
 * User-Agent carries (`… BadBot/1.0` against `User-agent: BadBot`): the `*` group decided, which is
 * likely not what the site meant for this crawler.
 * @param where how to name the file (`--robots-file x.txt`, `https://a.example/robots.txt`).
 */
export function tokenWarnings(robots: RobotsTxt, identity: CrawlerIdentity, where: string): string[] {
  const fallback = robots.names('*') ? 'so the "*" group decided' : 'so no group applies';
  const tokens = identity.tokens.map((t) => `"${t}"`).join(', ');
  return otherNamedProducts(robots, identity).map(
    ({ product, line }) =>
      `no group of ${where} names ${tokens}, ${fallback}; but --user-agent also carries "${product}", which the group at line ${line} names: if that is your crawler, pass --product-token ${product}`,
  );
}
