// The parser layer's public shapes (see DESIGN.md "The contract other code relies on").
// This file must stay free of Node built-ins: the parser runs in browsers, Deno and workers.

/** How serious a diagnostic is. `error`: the line was ignored or the file is not robots.txt;
 *  `warning`: accepted, but probably not what the author meant; `info`: worth knowing. */
export type Severity = 'error' | 'warning' | 'info';

/** One finding about one line of a robots.txt file, from the same parse that matching uses. */
export interface Diagnostic {
  /** 1-based line number (0 for findings about the whole file, such as a BOM or truncation). */
  readonly line: number;
  /** 1-based column where the finding starts (1 when it concerns the whole line). */
  readonly column?: number;
  readonly severity: Severity;
  /** Stable machine-readable code, e.g. `unknown-directive`, `misspelled-directive`. */
  readonly code: string;
  /** One sentence for a person. */
  readonly message: string;
}

/** A rule as written in the file (RFC 9309 §2.2.2). */
export interface RuleRef {
  readonly type: 'allow' | 'disallow';
  /** The pattern as written in the file (trimmed, comment removed). */
  readonly pattern: string;
  /** 1-based line number of the rule. */
  readonly line: number;
}

/** The group (or merged groups) that applied to a crawler (RFC 9309 §2.1, §2.2.1). */
export interface GroupRef {
  /** The user-agent values of every merged group, as written (e.g. `['FooBot', '*']` never mixes: either the named groups or the `*` groups). */
  readonly userAgents: string[];
  /** 1-based line numbers of the `user-agent` lines that opened each merged group. */
  readonly lines: number[];
}

/** The answer for one URL. */
export interface MatchResult {
  readonly allowed: boolean;
  /** The deciding rule; null when no rule matched (then `allowed` is true). */
  readonly rule: RuleRef | null;
  /** The group that applied; null when no group applies to this crawler. */
  readonly group: GroupRef | null;
}

export interface ParseOptions {
  /** Bytes parsed at most (RFC 9309 §2.5 asks for at least 500 KiB). Default 512,000 (500 KiB).
   *  Content past it is ignored, a partial last line dropped, and a `truncated` diagnostic reported. */
  maxBytes?: number;
  /** Absolute URL the file was fetched from; relative `Sitemap:` values are resolved against it. */
  url?: string;
}

/** A parsed robots.txt file. Any byte sequence parses; nothing here throws except on a bad URL. */
export interface RobotsTxt {
  /** May `userAgent` fetch `url`? `url`: absolute (http/https) or a path beginning with `/`.
   *  `userAgent`: a full User-Agent string or a bare product token.
   *  @throws TypeError naming the URL when it cannot be parsed (never a silent allow). */
  isAllowed(url: string | URL, userAgent: string): boolean;
  /** Like isAllowed, with the deciding rule and the group that applied (RFC 9309 §2.2.2). */
  check(url: string | URL, userAgent: string): MatchResult;
  /** Crawl-delay in SECONDS from the group that applies to `userAgent`, or undefined. */
  crawlDelay(userAgent: string): number | undefined;
  /** Every `Sitemap:` URL in file order (resolved against `options.url` when relative). */
  readonly sitemaps: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}
