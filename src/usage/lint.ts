// Lint findings about usage lines that only the vocabulary can tell (the parser reports placement).
import type { RobotsTxt } from '../parser/index.js';
import { readPreferences } from './vocabulary.js';

export interface UsageDiagnostic {
  readonly line: number;
  readonly severity: 'warning' | 'info';
  /** `usage-syntax`: not a structured-field dictionary (or only once lower-cased);
   *  `usage-unknown-label`: a label no vocabulary knows; `usage-bad-value`: a known label whose
   *  value is neither yes nor no. */
  readonly code: 'usage-syntax' | 'usage-unknown-label' | 'usage-bad-value';
  readonly message: string;
}

/** Syntax and vocabulary findings for every Content-Usage and Content-Signal line of `robots`. */
export function usageDiagnostics(robots: RobotsTxt): UsageDiagnostic[] {
  const out: UsageDiagnostic[] = [];
  for (const l of robots.usageLines) {
    const name = l.kind === 'content-usage' ? 'Content-Usage' : 'Content-Signal';
    const read = readPreferences(l.kind, l.value);
    if (read.syntaxError !== undefined) {
      out.push({ line: l.line, severity: 'warning', code: 'usage-syntax', message: `${name} "${l.value}" is not a structured-field dictionary (RFC 9651); it was ignored.` });
      continue;
    }
    if (read.lowerCased) {
      out.push({ line: l.line, severity: 'warning', code: 'usage-syntax', message: `${name} "${l.value}" has upper-case keys, which RFC 9651 does not allow; it was read lower-cased.` });
    }
    const values = l.kind === 'content-usage' ? 'y or n' : 'yes or no';
    for (const key of read.badValues ?? []) {
      out.push({ line: l.line, severity: 'warning', code: 'usage-bad-value', message: `${name} label "${key}" takes ${values}; its value was ignored.` });
    }
    for (const key of read.unknown) {
      const known = l.kind === 'content-usage' ? 'train-ai, search' : 'search, ai-input, ai-train';
      out.push({ line: l.line, severity: 'info', code: 'usage-unknown-label', message: `${name} label "${key}" is not one of ${known}; it was ignored.` });
    }
  }
  return out;
}
