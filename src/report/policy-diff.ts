// A line diff between two robots.txt versions, for the report and the audit browser.
// jsdiff does the work (Myers' algorithm); this only numbers the lines for display.
// No Node built-ins: it is bundled into the browser page too.
import { diffLines } from 'diff';

export interface DiffLine {
  readonly kind: 'same' | 'added' | 'removed';
  readonly text: string;
  /** 1-based line in the old version (null for added lines). */
  readonly oldLine: number | null;
  /** 1-based line in the new version (null for removed lines). */
  readonly newLine: number | null;
}

/** Line-by-line diff of two bodies; a missing body (no file, unreachable) counts as empty. */
export function diffPolicies(oldBody: string | null, newBody: string | null): DiffLine[] {
  const out: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const part of diffLines(oldBody ?? '', newBody ?? '')) {
    const lines = part.value.split(/\r\n|\r|\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    for (const text of lines) {
      if (part.added) out.push({ kind: 'added', text, oldLine: null, newLine: newLine++ });
      else if (part.removed) out.push({ kind: 'removed', text, oldLine: oldLine++, newLine: null });
      else out.push({ kind: 'same', text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return out;
}
