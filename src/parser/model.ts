// The model: the tokenizer's handler that records groups, rules, crawl-delays and sitemaps as compact
// arrays (RFC 9309 §2.1-2.2, §2.4). The matcher (robots-txt.ts) and the linter (lint.ts) both read it,
// so there is one parse for both. Nothing is compiled here.

import { DiagnosticLog } from './diagnostics.js';
import { decodeBody, DEFAULT_MAX_BYTES } from './decode.js';
import { hasDigit, lineTokenExact, userAgentLineToken } from './product-token.js';
import { Key, Leniency, tokenize, type LineHandler } from './tokenizer.js';
import type { ParseOptions } from './types.js';

/** One group as recorded by the parse: its user-agent lines and a contiguous range of rules. */
export interface GroupRecord {
  readonly agentValues: string[];
  /** Lower-cased product token each user-agent line names, `*`, or `''` (names nothing). */
  readonly agentTokens: string[];
  readonly agentLines: number[];
  readonly ruleStart: number;
  ruleEnd: number;
  /** Valid Crawl-delay lines in file order: seconds, line, and how many user-agent lines preceded it. */
  crawlDelays: readonly CrawlDelayRecord[];
  /** A rule line was seen: the next user-agent line starts a new group (RFC 9309 §2.1). */
  closed: boolean;
}

export interface CrawlDelayRecord {
  readonly seconds: number;
  readonly line: number;
  readonly agents: number;
}

/** A group's crawlDelays until it has one: most groups have none. */
const NO_DELAYS: readonly CrawlDelayRecord[] = Object.freeze([]);

/** The parse result shared by the matcher and the linter. */
export interface Model {
  /** The decoded text; rules are ranges of it, so a parse keeps no string per rule. */
  readonly text: string;
  readonly groups: GroupRecord[];
  /** The rules in file order, three numbers each: the pattern's range of `text` (trimmed, comment
   *  removed), then its line, positive for allow, negative for disallow (see RuleSource). */
  readonly rules: ArrayLike<number>;
  readonly sitemaps: string[];
  /** Content-Usage and Content-Signal lines in file order: usage, recorded beside access. */
  readonly usage: UsageRecord[];
  readonly log: DiagnosticLog;
}

/** One usage line as recorded: `group` is the index in `groups`, or -1 before any user-agent line. */
export interface UsageRecord {
  readonly kind: 'content-usage' | 'content-signal';
  readonly group: number;
  /** Content-Usage's optional path pattern, as written; null when the line has none. */
  readonly path: string | null;
  /** The preference text after the path (a structured-field dictionary, not parsed here). */
  readonly value: string;
  readonly line: number;
}

/** The pattern of rule `i` as written. */
export function rulePattern(model: Model, i: number): string {
  return model.text.slice(model.rules[3 * i], model.rules[3 * i + 1]);
}

/** Sitemaps from which their de-duplication keeps a Set. */
const SITEMAP_SET_FROM = 8;

/** Rules from which the model's table is worth a typed array. */
const TYPED_RULES_FROM = 256;
/** Distinct usage lines kept at most (real files have a handful): each is read for every document
 *  a crawler fetches, and rides on its audit row. */
export const MAX_USAGE_LINES = 256;
/** What the usage lines past MAX_USAGE_LINES are read as: every use reserved. */
const CAPPED_SIGNAL = 'search=no, ai-input=no, ai-train=no';

class ModelBuilder implements LineHandler, Model {
  readonly groups: GroupRecord[] = [];
  rules: number[] | Int32Array = [];
  private ruleCount = 0;
  readonly sitemaps: string[] = [];
  /** The sitemaps seen, for de-duplication in constant time (a file may list 10,000 of them); made
   *  once there are more than a few, which a scan of the list decides as fast. */
  private sitemapSet: Set<string> | null = null;
  readonly usage: UsageRecord[] = [];
  /** Usage lines kept so far, by kind, group, path and value: a repeated one adds nothing, and a
   *  file of 10,000 copies of one Content-Signal line made every check read (and every audit row
   *  carry) all of them, 8.5 MB a row. */
  private usageSeen: Set<string> | null = null;
  private usageCapped = false;
  private current: GroupRecord | null = null;
  /** The tolerances reported for the coming directive, as bits (1 << Leniency). */
  private lenientKinds = 0;

  constructor(
    readonly text: string,
    readonly log: DiagnosticLog,
    private readonly baseUrl: string | undefined,
    private readonly quietUnknown: boolean,
  ) {}

  directive(key: Key, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, line: number, lineStart: number): void {
    if (this.lenientKinds !== 0) this.logLenient(keyStart, keyEnd, valueStart, valueEnd, line, lineStart);
    const text = this.text;
    const keyColumn = keyStart - lineStart + 1;
    const valueColumn = valueStart - lineStart + 1;
    switch (key) {
      case Key.UserAgent: {
        let g = this.current;
        if (g === null || g.closed) {
          g = {
            agentValues: [],
            agentTokens: [],
            agentLines: [],
            ruleStart: this.ruleCount,
            ruleEnd: this.ruleCount,
            crawlDelays: NO_DELAYS,
            closed: false,
          };
          this.groups.push(g);
          this.current = g;
        }
        const value = text.slice(valueStart, valueEnd);
        const token = userAgentLineToken(value);
        const exact = lineTokenExact;
        g.agentValues.push(value);
        g.agentTokens.push(token);
        g.agentLines.push(line);
        if (!exact) this.log.add('invalid-product-token', token === '' ? 'warning' : 'info', line, valueColumn, token);
        if (hasDigit(token)) this.log.add('digit-in-product-token', 'info', line, valueColumn, value.slice(0, token.length));
        return;
      }
      case Key.Allow:
      case Key.Disallow: {
        const g = this.current;
        if (g === null) {
          this.log.add('rule-outside-group', 'error', line, keyColumn, text.slice(keyStart, keyEnd));
          return;
        }
        g.closed = true;
        // RFC 9309 §2.2.2: an empty value is no rule; the group still exists.
        if (valueStart === valueEnd) return;
        const c = text.charCodeAt(valueStart);
        if (c !== 47 && c !== 42) this.log.add('pattern-not-path', 'warning', line, valueColumn, text.slice(valueStart, valueEnd));
        (this.rules as number[]).push(valueStart, valueEnd, key === Key.Allow ? line : -line);
        g.ruleEnd = ++this.ruleCount;
        return;
      }
      case Key.CrawlDelay: {
        const g = this.current;
        if (g === null) {
          this.log.add('rule-outside-group', 'error', line, keyColumn, text.slice(keyStart, keyEnd));
          return;
        }
        // Crawl-delay is not a rule (RFC 9309 §2.2.4 "other records"): it neither starts nor ends a group.
        const value = text.slice(valueStart, valueEnd);
        const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?/i.exec(value);
        let seconds = m ? Number(m[0]) : NaN;
        // Digits past what a double holds (`1e400`) still say "longer than any crawl": read as the
        // largest delay that stays finite in ms, not dropped (the host then went at the floor).
        if (seconds === Infinity) seconds = 1e300;
        if (!Number.isFinite(seconds)) {
          this.log.add('invalid-crawl-delay', 'error', line, valueColumn, value);
          return;
        }
        if (m![0].length !== value.length) this.log.add('invalid-crawl-delay', 'warning', line, valueColumn, value);
        const delay = { seconds, line, agents: g.agentLines.length };
        if (g.crawlDelays === NO_DELAYS) g.crawlDelays = [delay];
        else (g.crawlDelays as CrawlDelayRecord[]).push(delay);
        return;
      }
      case Key.Sitemap:
        this.sitemap(text.slice(valueStart, valueEnd), line, valueColumn);
        return;
      case Key.ContentUsage: {
        const g = this.current;
        // The aipref attach draft makes Content-Usage a rule of a group: it has no meaning before one.
        if (g === null) {
          this.log.add('usage-outside-group', 'error', line, keyColumn, text.slice(keyStart, keyEnd));
          return;
        }
        g.closed = true;
        const value = text.slice(valueStart, valueEnd);
        const c = value.charCodeAt(0);
        let path: string | null = null;
        let prefs = value;
        if (c === 47 || c === 42) {
          const cut = value.search(/[ \t]/);
          path = cut < 0 ? value : value.slice(0, cut);
          prefs = cut < 0 ? '' : value.slice(cut).trim();
        }
        this.addUsage({ kind: 'content-usage', group: this.groups.length - 1, path, value: prefs, line }, keyColumn, value);
        return;
      }
      case Key.ContentSignal: {
        // Not a rule: like Crawl-delay it neither starts nor ends a group. Before any user-agent line
        // it is read as applying to every crawler, as sites that put it there mean it.
        const g = this.current;
        if (g === null) this.log.add('signal-outside-group', 'info', line, keyColumn);
        const value = text.slice(valueStart, valueEnd);
        this.addUsage({ kind: 'content-signal', group: g === null ? -1 : this.groups.length - 1, path: null, value, line }, keyColumn, value);
        return;
      }
      default: {
        // A bare `http(s)://...` line: the tokenizer reads `http` as the key. Real files list sitemaps
        // this way (a forgotten `Sitemap:`); take the URL as one, with a diagnostic.
        const rawKey = text.slice(keyStart, keyEnd);
        if (keyEnd - keyStart <= 5 && /^https?$/i.test(rawKey) && text.startsWith('//', valueStart) && !/\s/.test(text.slice(valueStart, valueEnd))) {
          const url = text.slice(keyStart, valueEnd);
          this.log.add('sitemap-without-key', 'warning', line, keyColumn, url);
          this.addSitemap(url);
          return;
        }
        if (!this.quietUnknown) this.log.add('unknown-directive', 'info', line, keyColumn, rawKey);
      }
    }
  }

  private addSitemap(url: string): void {
    // The same sitemap listed twice is reported once.
    const list = this.sitemaps;
    if (this.sitemapSet === null) {
      if (list.length < SITEMAP_SET_FROM) {
        if (!list.includes(url)) list.push(url);
        return;
      }
      this.sitemapSet = new Set(list);
    }
    if (this.sitemapSet.has(url)) return;
    this.sitemapSet.add(url);
    list.push(url);
  }

  /** Keep a usage line unless an identical one of its group was kept, or MAX_USAGE_LINES were. */
  private addUsage(r: UsageRecord, column: number, text: string): void {
    const key = `${r.kind}\0${r.group}\0${r.path ?? ''}\0${r.value}`;
    const seen = (this.usageSeen ??= new Set());
    if (seen.has(key)) {
      this.log.add('duplicate-usage-line', 'info', r.line, column, text);
      return;
    }
    if (this.usage.length >= MAX_USAGE_LINES) {
      if (this.usageCapped) return;
      this.usageCapped = true;
      this.log.add('too-many-usage-lines', 'warning', r.line, column, String(MAX_USAGE_LINES));
      // Lines left unread may reserve a use, and a reservation wins over any allowing line: read
      // every use as reserved from here (fail closed), for every crawler. Ignored silently, a
      // file-wide `train-ai=n` after 256 junk lines read as "unknown".
      this.usage.push({ kind: 'content-signal', group: -1, path: null, value: CAPPED_SIGNAL, line: r.line });
      return;
    }
    seen.add(key);
    this.usage.push(r);
  }

  private sitemap(value: string, line: number, column: number): void {
    if (value === '') return;
    // An absolute URL is kept exactly as written (case preserved); only relative ones are resolved.
    if (/^[a-z][a-z0-9+.-]*:/i.test(value)) {
      this.addSitemap(value);
      return;
    }
    if (this.baseUrl !== undefined) {
      try {
        this.addSitemap(new URL(value, this.baseUrl).href);
        this.log.add('relative-sitemap', 'info', line, column, value);
        return;
      } catch {
        // falls through: dropped
      }
    }
    this.log.add('relative-sitemap', 'error', line, column, value);
  }

  lenient(kind: Leniency): void {
    // The missing-colon message quotes the value, which only `directive` (always called next) is
    // given: both are logged there, in the order they came.
    this.lenientKinds |= 1 << kind;
  }

  private logLenient(keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, line: number, lineStart: number): void {
    const rawKey = this.text.slice(keyStart, keyEnd);
    // In the order the tokenizer reports them: a missing colon, then a misspelling.
    // Neither part holds a line break, so one separates them.
    if (this.lenientKinds & (1 << Leniency.MissingColon)) this.log.add('missing-colon', 'warning', line, keyEnd - lineStart + 1, `${rawKey}\n${this.text.slice(valueStart, valueEnd)}`);
    if (this.lenientKinds & (1 << Leniency.Misspelled)) this.log.add('misspelled-directive', 'warning', line, keyStart - lineStart + 1, rawKey);
    this.lenientKinds = 0;
  }

  /** The parse is over: drop what only the parse needed. A long rule table becomes an Int32Array
   *  (4 bytes a number, where an array of numbers costs 8); a short one stays as it is, since
   *  allocating a typed array costs about 0.3 µs, more than a small file's rules take to read. */
  finish(): void {
    this.sitemapSet = null;
    if (this.ruleCount >= TYPED_RULES_FROM) this.rules = new Int32Array(this.rules);
  }

  nul(line: number, column: number): void {
    this.log.add('nul-byte', 'warning', line, column);
  }

  invalid(line: number, column: number): void {
    if (!this.quietUnknown) this.log.add('invalid-line', 'warning', line, column);
  }
}

function looksLikeHtml(text: string): boolean {
  let i = 0;
  while (i < text.length && i < 4096 && text.charCodeAt(i) <= 32) i++;
  if (text.charCodeAt(i) !== 60 /* < */) return false;
  const head = text.slice(i, i + 2048).toLowerCase();
  return head.startsWith('<!doctype html') || head.includes('<html') || head.includes('<head') || head.includes('<body');
}

/** Parse into the shared model (used by parseRobotsTxt and lintRobotsTxt). Never throws. */
export function buildModel(body: string | Uint8Array, options: ParseOptions | undefined): Model {
  const maxBytes = options?.maxBytes ?? DEFAULT_MAX_BYTES;
  const log = new DiagnosticLog();
  let decoded;
  try {
    decoded = decodeBody(body ?? '', maxBytes > 0 ? maxBytes : DEFAULT_MAX_BYTES);
  } catch {
    decoded = { text: '', bom: false, invalidUtf8: false, truncatedBytes: 0 };
  }
  if (decoded.bom) log.add('bom', 'info', 0, 1);
  if (decoded.invalidUtf8) log.add('non-utf8', 'warning', 0, 1);
  if (decoded.utf16) log.add('utf16', 'warning', 0, 1, decoded.utf16 === 'le' ? 'UTF-16LE' : 'UTF-16BE');
  const html = looksLikeHtml(decoded.text);
  if (html) log.add('html-body', 'error', 0, 1);
  // In an HTML page every markup line would be an unknown directive: report the page once instead.
  const builder = new ModelBuilder(decoded.text, log, options?.url, html);
  tokenize(decoded.text, builder, decoded.nul);
  builder.finish();
  if (decoded.truncatedBytes > 0) log.add('truncated', 'warning', 0, 1, `${decoded.truncatedBytes} bytes past ${maxBytes}`);
  return builder;
}
