// Messages between the tester page and its worker. The worker owns all parsing, so a 5 MB paste
// or a pathological file never freezes the page: the page can always terminate it and start over.
import type { Diagnostic, GroupRef, RuleRef } from '../../parser/types.js';

export interface EvaluateRequest {
  /** Increases with every request; stale answers are dropped. */
  readonly seq: number;
  /** The robots.txt: the fetched bytes until the person edits it, then the text. */
  readonly body: string | Uint8Array;
  /** Where it was fetched from, to resolve relative Sitemap lines; undefined for a paste. */
  readonly url?: string;
  readonly userAgent: string;
  /** The product token(s) typed, in fallback order; empty: read from the user agent. */
  readonly productTokens: readonly string[];
  readonly urls: readonly string[];
}

export interface UrlVerdict {
  readonly url: string;
  /** Set when the URL could not be checked (not a URL, not http/https); then the rest is absent. */
  readonly error?: string;
  readonly allowed?: boolean;
  readonly rule?: RuleRef | null;
  readonly group?: GroupRef | null;
  /** Every line of the group that applied (user-agent lines and rules), for highlighting. */
  readonly groupLines?: readonly number[];
}

export interface EvaluateResponse {
  readonly seq: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly verdicts: readonly UrlVerdict[];
  /** The token the rules were matched against (the first fallback token the file names). */
  readonly productToken: string;
  /** `product-token`: typed in the form; `user-agent`: read from the user agent. Absent with identityError. */
  readonly productTokenSource?: 'product-token' | 'user-agent';
  /** For a token read from the user agent: the text it was read from (`compatible; GPTBot/1.1`). */
  readonly productTokenReadFrom?: string;
  /** Tokens typed before the one used that the file does not name (`MyBot-News` falling back to `MyBot`). */
  readonly skippedTokens?: readonly string[];
  /** Why a gate would refuse this user agent (and product token); verdicts then match as the parser
   *  reads the string (a bare browser string as `Mozilla`). */
  readonly identityError?: string;
  /** The file names none of the tokens but another product the user agent carries. */
  readonly warnings: readonly string[];
  /** Crawl-delay in SECONDS for the user agent, if the group sets one. */
  readonly crawlDelaySeconds?: number;
  readonly sitemaps: readonly string[];
  /** Parse + lint + checks, in ms. */
  readonly elapsedMs: number;
  /** Set when the worker itself failed; the page says so and keeps working. */
  readonly error?: string;
}
