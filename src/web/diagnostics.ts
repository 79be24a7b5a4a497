// Every finding about a robots.txt, for lint and the tester: the parse's own diagnostics plus the
// parser's lint-only checks, in file order. No Node built-ins: the tester's worker bundles it.
import { lintRobotsTxt } from '../parser/index.js';
import type { Diagnostic, ParseOptions, RobotsTxt } from '../parser/types.js';
import { usageDiagnostics } from '../usage/lint.js';

/** `robots` must be the parse of `body` with the same `options`. */
export function allDiagnostics(robots: RobotsTxt, body: string | Uint8Array, options: ParseOptions): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  // The same finding can come from both passes (lint re-reads the same tokens); show it once.
  // Usage lines' vocabulary (labels, dictionary syntax) is the usage layer's to judge.
  const usage: Diagnostic[] = usageDiagnostics(robots).map((d) => ({ ...d, column: 1 }));
  for (const d of [...robots.diagnostics, ...lintRobotsTxt(body, options), ...usage]) {
    const key = `${d.line}:${d.column ?? 1}:${d.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out.sort((a, b) => a.line - b.line || (a.column ?? 1) - (b.column ?? 1));
}
