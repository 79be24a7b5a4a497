// Lint findings about usage lines that only the vocabulary can tell (the parser reports placement).
import type { RobotsTxt } from '../parser/index.js';
import { readPreferences } from './vocabulary.js';

export interface UsageDiagnostic {
  readonly line: number;
  readonly severity: 'warning' | 'info';
  /** `usage-syntax`: not a structured-field dictionary; `usage-unknown-label`: a label no vocabulary knows. */
  readonly code: 'usage-syntax' | 'usage-unknown-label';
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
    for (const key of read.unknown) {
      const known = l.kind === 'content-usage' ? 'train-ai, search' : 'search, ai-input, ai-train';
      out.push({ line: l.line, severity: 'info', code: 'usage-unknown-label', message: `${name} label "${key}" is not one of ${known}; it was ignored.` });
    }
  }
  return out;
}
