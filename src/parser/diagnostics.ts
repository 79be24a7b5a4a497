// Diagnostics are recorded during the parse as compact numbers (code, line, column, detail) and turned
// into objects with messages only when someone reads them: the matcher's parse stays cheap.

import type { Diagnostic, DiagnosticCode, Severity } from './types.js';

const NONE: DiagnosticCode[] = [];
const NO_SEVERITIES: Severity[] = [];
const NO_NUMBERS: number[] = [];
const NO_DETAILS: string[] = [];

export class DiagnosticLog {
  // Created on the first diagnostic: most files have none, and every parse made four empty arrays.
  private codes: DiagnosticCode[] = NONE;
  private severities: Severity[] = NO_SEVERITIES;
  private nums: number[] = NO_NUMBERS;
  private details: string[] = NO_DETAILS;
  private built: Diagnostic[] | undefined;

  add(code: DiagnosticCode, severity: Severity, line: number, column: number, detail = ''): void {
    if (this.codes === NONE) {
      this.codes = [];
      this.severities = [];
      this.nums = [];
      this.details = [];
    }
    this.codes.push(code);
    this.severities.push(severity);
    this.nums.push(line, column);
    this.details.push(detail);
    this.built = undefined;
  }

  get list(): readonly Diagnostic[] {
    if (this.built) return this.built;
    const out: Diagnostic[] = new Array(this.codes.length);
    for (let i = 0; i < this.codes.length; i++) {
      const code = this.codes[i]!;
      out[i] = Object.freeze({
        line: this.nums[2 * i]!,
        column: this.nums[2 * i + 1]!,
        severity: this.severities[i]!,
        code,
        message: message(code, this.severities[i]!, this.details[i]!),
      });
    }
    return (this.built = Object.freeze(out) as Diagnostic[]);
  }
}

function message(code: DiagnosticCode, severity: Severity, d: string): string {
  switch (code) {
    case 'bom':
      return 'The file starts with a UTF-8 byte-order mark; it was skipped.';
    case 'non-utf8':
      return 'The file is not valid UTF-8; each invalid byte was read as its %XX escape, so rules still compare octet for octet (RFC 9309 §2.2.2).';
    case 'utf16':
      return `The file is ${d} (it starts with a UTF-16 byte-order mark), not UTF-8 as RFC 9309 §2.2 asks; it was decoded as ${d}.`;
    case 'html-body':
      return 'The body looks like an HTML page, not a robots.txt file.';
    case 'truncated':
      return `Content past the size limit was ignored (${d}), as RFC 9309 §2.5 allows.`;
    case 'unknown-directive':
      return `Unknown directive "${d}"; the line was ignored.`;
    case 'misspelled-directive':
      return `"${d}" is a misspelling; it was accepted as "${canonical(d)}".`;
    case 'missing-colon': {
      const cut = d.indexOf('\n');
      const key = d.slice(0, cut);
      return `"${key}" is not followed by a colon; the line was read as "${key}: ${d.slice(cut + 1)}".`;
    }
    case 'nul-byte':
      return 'A NUL byte ends the line here; the rest of it was ignored, as Google\'s parser does.';
    case 'invalid-line':
      return 'The line is not "key: value"; it was ignored.';
    case 'rule-outside-group':
      return `"${d}" appears before any user-agent line; it was ignored (RFC 9309 §2.1).`;
    case 'invalid-product-token':
      return d === ''
        ? 'The user-agent value names no valid product token (letters, digits, "_" and "-", RFC 9309 §2.2.1); no crawler matches it.'
        : `The user-agent value is not a plain product token; it names "${d}" (RFC 9309 §2.2.1).`;
    case 'digit-in-product-token':
      return `The product token "${d}" holds a digit, which RFC 9309 §2.2.1 does not allow; it is accepted and compared whole, as crawlers are named so.`;
    case 'pattern-not-path':
      return `The pattern "${d}" starts with neither "/" nor "*", so it matches no URL path (RFC 9309 §2.2.2).`;
    case 'invalid-crawl-delay':
      return severity === 'error'
        ? `Crawl-delay "${d}" is not a non-negative number of seconds; it was ignored.`
        : `Crawl-delay "${d}" has text after its number; the number was used.`;
    case 'relative-sitemap':
      return severity === 'error'
        ? `Sitemap "${d}" is relative and no robots.txt URL is known; it was dropped.`
        : `Sitemap "${d}" is relative; it was resolved against the robots.txt URL.`;
    case 'sitemap-without-key':
      return `The line "${d}" is a bare URL; it was taken as a Sitemap.`;
    case 'usage-outside-group':
      return `"${d}" appears before any user-agent line; it was ignored (it is a rule of a group, aipref attach draft).`;
    case 'signal-outside-group':
      return 'Content-Signal appears before any user-agent line; it was read as applying to every crawler.';
    case 'conflicting-rules':
      return `Allow and Disallow have the same pattern "${d}" in one group; Allow wins (RFC 9309 §2.2.2).`;
    case 'duplicate-rule':
      return `The rule "${d}" repeats an earlier rule of its group; it can never decide.`;
    case 'shadowed-rule':
      return `The rule "${d}" can never decide: another rule of its group always wins over it.`;
    case 'duplicate-usage-line':
      return `The usage line "${d}" repeats an earlier one of its group; it adds nothing.`;
    case 'too-many-usage-lines':
      return `More than ${d} distinct Content-Usage and Content-Signal lines; this one and the rest were not read (each is read for every document fetched), and every use is taken as reserved, since one of them may reserve it.`;
  }
}

function canonical(key: string): string {
  const k = key.toLowerCase();
  if (k.startsWith('u')) return 'user-agent';
  if (k.startsWith('s')) return 'sitemap';
  return 'disallow';
}
