// Every finding about a robots.txt, for lint and the tester: the parse's own diagnostics plus the
// parser's lint-only checks, in file order. No Node built-ins: the tester's worker bundles it.
import { decodeRobotsText, lintRobotsTxt } from '../parser/index.js';
import type { Diagnostic, ParseOptions, RobotsTxt } from '../parser/types.js';
import { usageDiagnostics } from '../usage/lint.js';

/** Characters looked at, as git and grep look at a file's start to call it binary. */
const SNIFF_CHARS = 8192;

/** A file whose start has a run of NULs, or whose control characters (tab, CR, LF, FF aside) are
 *  more than a tenth of it, is not text (once decoded: UTF-16 text has neither): an image, an
 *  archive, a program served as robots.txt. Its "lines" are noise, and quoting them (a 23 KB
 *  "directive") buries the one finding that matters. One NUL in a line of text is no such file:
 *  the parser reports it where it is (nul-byte). */
export function notText(body: string | Uint8Array): Diagnostic | undefined {
  const head = decodeRobotsText(body).slice(0, SNIFF_CHARS);
  const controls = head.match(/[\x00-\x08\x0b\x0e-\x1f]/g)?.length ?? 0;
  if (!head.includes('\0\0\0\0') && controls * 10 <= head.length) return undefined;
  return {
    line: 0,
    severity: 'error',
    code: 'not-text',
    message: 'The file is not text: it is full of NUL bytes and control characters, as images, archives and programs do, so nothing in it is a robots.txt (RFC 9309 §2.2: UTF-8 text); its lines were not checked.',
  };
}

/** `robots` must be the parse of `body` with the same `options`. A file that is not text gets
 *  that one finding instead of one per line. */
export function allDiagnostics(robots: RobotsTxt, body: string | Uint8Array, options: ParseOptions): Diagnostic[] {
  const binary = notText(body);
  if (binary) return [binary];
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
