// The parser layer's public shapes (see DESIGN.md "The contract other code relies on").
// This file must stay free of Node built-ins: the parser runs in browsers, Deno and workers.

/** How serious a diagnostic is. `error`: the line was ignored or the file is not robots.txt;
 *  `warning`: accepted, but probably not what the author meant; `info`: worth knowing. */
export type Severity = 'error' | 'warning' | 'info';

/**
 * The closed set of diagnostic codes. New codes may be added; none is ever renamed or removed.
 *
 * Reported by every parse (`parseRobotsTxt(...).diagnostics`):
 * - `bom`: the file starts with a UTF-8 byte-order mark; it was skipped (info).
 * - `non-utf8`: the file is not valid UTF-8; each bad byte was read as its `%XX` escape (warning).
 * - `utf16`: the file is UTF-16 with a byte-order mark; it was decoded as UTF-16 although RFC 9309 §2.2
 *    asks for UTF-8 (warning).
 * - `html-body`: the body is an HTML page, not a robots.txt file (error; its lines are still read).
 * - `truncated`: content past `maxBytes` was ignored, the partial last line dropped (RFC 9309 §2.5) (warning).
 * - `unknown-directive`: a `key: value` line whose key robots-gate does not know; ignored (info).
 * - `misspelled-directive`: a misspelling of `disallow`/`user-agent`/`sitemap`, accepted as Google's parser does (warning).
 * - `missing-colon`: `key value` without a colon, accepted as Google's parser does (warning).
 * - `invalid-line`: a line that is neither a comment nor `key: value`; ignored (warning).
 * - `rule-outside-group`: an allow, disallow or crawl-delay line before any user-agent line; ignored (error).
 * - `invalid-product-token`: a user-agent value that is not a bare product token (RFC 9309 §2.2.1); the
 *    leading run of letters, digits, `_` and `-` is used (info), or the line names nothing when there is none (warning).
 * - `digit-in-product-token`: the token a user-agent line names holds a digit (`AI2Bot`, `MJ12bot`): outside
 *    RFC 9309 §2.2.1's letters-only grammar, but accepted and compared whole, as crawlers are named so (info).
 * - `pattern-not-path`: an allow/disallow pattern that starts with neither `/` nor `*`; it is kept as written,
 *    so it can only match URLs whose path begins with it, i.e. none (warning).
 * - `invalid-crawl-delay`: a Crawl-delay that is not a non-negative finite number of seconds (error: ignored),
 *    or a number followed by other text (warning: the number is used).
 * - `relative-sitemap`: a relative Sitemap URL, resolved against `options.url` (info) or dropped when none is given (error).
 * - `sitemap-without-key`: a line that is a bare `http(s)://` URL, taken as a Sitemap (warning).
 * - `usage-outside-group`: a Content-Usage line before any user-agent line; ignored (error; aipref attach draft).
 * - `signal-outside-group`: a Content-Signal line before any user-agent line; read as applying to every crawler (info).
 *
 * Reported only by `lintRobotsTxt` (costlier checks, over the same tokenizer's output):
 * - `conflicting-rules`: an Allow and a Disallow with the same pattern in one group; Allow wins (RFC 9309 §2.2.2) (warning).
 * - `duplicate-rule`: a rule identical to an earlier one in its group (after percent normalisation); it can never decide (info).
 * - `shadowed-rule`: a rule that can never decide because another rule of the group always wins over it (warning).
 */
export type DiagnosticCode =
  | 'bom'
  | 'non-utf8'
  | 'utf16'
  | 'html-body'
  | 'truncated'
  | 'unknown-directive'
  | 'misspelled-directive'
  | 'missing-colon'
  | 'invalid-line'
  | 'rule-outside-group'
  | 'invalid-product-token'
  | 'digit-in-product-token'
  | 'pattern-not-path'
  | 'invalid-crawl-delay'
  | 'relative-sitemap'
  | 'sitemap-without-key'
  | 'usage-outside-group'
  | 'signal-outside-group'
  | 'conflicting-rules'
  | 'duplicate-rule'
  | 'shadowed-rule'
  | 'duplicate-usage-line'
  | 'too-many-usage-lines'
  | 'nul-byte';

/** One finding about one line of a robots.txt file, from the same parse that matching uses. */
export interface Diagnostic {
  /** 1-based line number (0 for findings about the whole file, such as a BOM or truncation). */
  readonly line: number;
  /** 1-based column where the finding starts (1 when it concerns the whole line). */
  readonly column?: number;
  readonly severity: Severity;
  /** Stable machine-readable code: one of {@link DiagnosticCode}. */
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
  /** For each merged group, the value of its user-agent line that named the crawler (or `*`), as written.
   *  Never mixes: either the groups naming the crawler or the `*` groups (e.g. `['FooBot', 'foobot/2']`). */
  readonly userAgents: string[];
  /** 1-based line numbers of those user-agent lines, one per merged group, parallel to `userAgents`. */
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

/** One `user-agent` line of a group, as written. */
export interface UserAgentLine {
  /** The value as written (trimmed, comment removed), e.g. `ExampleBot/1.0`. */
  readonly value: string;
  /** The product token it names, lower-cased (`examplebot`, `ai2bot`), `*`, or `''` when it names none (RFC 9309 §2.2.1). */
  readonly token: string;
  /** 1-based line number. */
  readonly line: number;
}

/** One group of the file as written (before merging), for explainers and testers (RFC 9309 §2.1). */
export interface GroupInfo {
  /** The group's user-agent lines, in file order (at least one). */
  readonly userAgents: readonly UserAgentLine[];
  /** The group's rules in file order (empty `Disallow:` lines are not rules and do not appear). */
  readonly rules: readonly RuleRef[];
  /** The group's first valid Crawl-delay, in SECONDS, with its line; undefined when it has none. */
  readonly crawlDelay: { readonly seconds: number; readonly line: number } | undefined;
}

/**
 * The rules of one file that apply to one crawler (the groups naming it, merged, else the `*` groups:
 * RFC 9309 §2.2.1), kept apart from the file: what a cache holds per origin. Answers exactly as
 * `RobotsTxt.check` does for that crawler.
 */
export interface AgentPolicy {
  /** The group(s) that apply; null when none does (then every URL is allowed). */
  readonly group: GroupRef | null;
  /** Crawl-delay in SECONDS from the groups that apply, or undefined. */
  readonly crawlDelay: number | undefined;
  /** May the crawler fetch `url` (absolute http(s), or a path beginning with `/`)?
   *  @throws TypeError naming the URL when it cannot be parsed. */
  isAllowed(url: string | URL): boolean;
  /** Like isAllowed, with the deciding rule and the group (RFC 9309 §2.2.2). */
  check(url: string | URL): MatchResult;
}

/** A parsed robots.txt file. Any byte sequence parses; nothing here throws except on a bad URL. */
export interface RobotsTxt {
  /** May `userAgent` fetch `url`? `url`: absolute (http/https) or a path beginning with `/`.
   *  `userAgent`: a full User-Agent string or a bare product token; its token is read by `productToken()`
   *  (a `Mozilla/…` string naming no crawler after `compatible;` is matched as `mozilla`).
   *  @throws TypeError naming the URL when it cannot be parsed (never a silent allow). */
  isAllowed(url: string | URL, userAgent: string): boolean;
  /** Like isAllowed, with the deciding rule and the group that applied (RFC 9309 §2.2.2). */
  check(url: string | URL, userAgent: string): MatchResult;
  /** Crawl-delay in SECONDS from the group that applies to `userAgent`, or undefined. */
  crawlDelay(userAgent: string): number | undefined;
  /** Does a user-agent line of some group name this product token (compared whole, case-insensitively;
   *  `*` asks for a global group)? For fallback tokens (`['MyBot-News', 'MyBot']`: the first one named
   *  decides) and for warnings. */
  names(token: string): boolean;
  /** Every `Sitemap:` URL in file order (resolved against `options.url` when relative). */
  readonly sitemaps: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
  /** Every group of the file as written, in file order (built on first access). */
  readonly groups: readonly GroupInfo[];
  /** The usage lines (Content-Usage, Content-Signal) that apply to `url` for `userAgent`, chosen from
   *  the same groups as `check`. They say nothing about access: `check` alone decides that.
   *  @throws TypeError naming the URL when it cannot be parsed. */
  usage(url: string | URL, userAgent: string): UsageMatch;
  /** Every usage line of the file in file order (`scope` says whether it stood in a group). */
  readonly usageLines: readonly UsageLine[];
  /**
   * The policy for one crawler, holding a copy of only its rules (not the file's text or model), for
   * caches that keep many origins. `productTokens`: a User-Agent string or bare token, read as
   * `check` reads one; or an ordered list of product tokens, of which the first that some group names
   * decides (`['MyBot-News', 'MyBot']`), the `*` groups applying only when none is named.
   * @throws TypeError when productTokens is neither a string nor an array of strings.
   */
  policyFor(productTokens: string | readonly string[]): AgentPolicy;
}

export interface LintOptions extends ParseOptions {}

/** A usage line of robots.txt: what the site says may be done with what is fetched, beside access. */
export interface UsageLine {
  /** `content-usage` (IETF aipref attach draft) or `content-signal` (Cloudflare's convention). */
  readonly kind: 'content-usage' | 'content-signal';
  /** Content-Usage's path pattern as written; null when the line gives none (it covers every path). */
  readonly path: string | null;
  /** The preferences as written (`train-ai=n, search=y`): a structured-field dictionary (RFC 9651). */
  readonly value: string;
  /** 1-based line number. */
  readonly line: number;
  /** `group`: in a group that applies to the crawler; `file`: before any user-agent line. */
  readonly scope: 'group' | 'file';
}

/** The usage lines that apply to one URL for one crawler (see RobotsTxt.usage). */
export interface UsageMatch {
  /** The Content-Usage rules with the longest matching path (several only on a tie), from the groups
   *  that apply; empty when none matches. */
  readonly contentUsage: readonly UsageLine[];
  /** Every Content-Signal line of the groups that apply, and those before any group, in file order. */
  readonly contentSignal: readonly UsageLine[];
}
