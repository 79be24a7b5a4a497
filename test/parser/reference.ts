// A slow, obviously correct reference matcher for RFC 9309 §2.2.2-2.2.3, written independently of
// src/parser (regular expressions for normalising, a table-filling DP for matching, a scan of every
// rule), to check the compiled, indexed matcher against.

const UNRESERVED_OR_SPECIAL = /[A-Za-z0-9\-._~*$]/;
const ALLOWED_RAW = /[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]/;

/** Percent normal form of one literal segment: a list of octet tokens (strings of 1 char or `%XX`). */
export function referenceNormalize(s: string): string[] {
  const out: string[] = [];
  const bytes = new TextEncoder().encode(s);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const ch = String.fromCharCode(b);
    if (b === 0x25) {
      const hex = String.fromCharCode(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0);
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        const decoded = String.fromCharCode(parseInt(hex, 16));
        out.push(UNRESERVED_OR_SPECIAL.test(decoded) ? decoded : '%' + hex.toUpperCase());
        i += 2;
      } else out.push('%25');
    } else if (b < 0x80 && ALLOWED_RAW.test(ch)) out.push(ch);
    else out.push('%' + b.toString(16).toUpperCase().padStart(2, '0'));
  }
  return out;
}

type Token = { kind: 'lit'; text: string } | { kind: 'any' } | { kind: 'end' };

function tokens(pattern: string): Token[] {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const result: Token[] = [];
  body.split('*').forEach((part, i) => {
    if (i > 0) result.push({ kind: 'any' });
    for (const t of referenceNormalize(part)) result.push({ kind: 'lit', text: t });
  });
  if (anchored) result.push({ kind: 'end' });
  return result;
}

/** Does `pattern` match the whole normalised path (as octet tokens), reading it as a prefix match? */
function matches(pattern: Token[], path: string[]): boolean {
  // reach[j]: the pattern so far can end right after path token j-1.
  let reach = new Array<boolean>(path.length + 1).fill(false);
  reach[0] = true;
  for (const t of pattern) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    for (let j = 0; j <= path.length; j++) {
      if (!reach[j]) continue;
      if (t.kind === 'any') for (let k = j; k <= path.length; k++) next[k] = true;
      else if (t.kind === 'end') next[j] = j === path.length;
      else if (j < path.length && path[j] === t.text) next[j + 1] = true;
    }
    reach = next;
    if (!reach.includes(true)) return false;
  }
  return reach.some(Boolean);
}

export interface ReferenceRule {
  allow: boolean;
  pattern: string;
}

/** Octets of the pattern in normal form, as RFC 9309 §2.2.2 compares them: a wildcard or anchor is one,
 *  an escape `%XX` three, and a literal `*` or `$` is written `%2A`/`%24`, three. */
export function referencePriority(pattern: string): number {
  let n = 0;
  for (const t of tokens(pattern)) n += t.kind !== 'lit' ? 1 : t.text === '*' || t.text === '$' ? 3 : t.text.length;
  return n;
}

/** The answer for a path (already starting with `/`, no fragment): allowed, and the winning priority or -1. */
const compiled = new WeakMap<ReferenceRule, Token[]>();

export function referenceCheck(rules: ReferenceRule[], path: string): { allowed: boolean; priority: number } {
  const target = referenceNormalize(path);
  let best: { allow: boolean; priority: number } | null = null;
  for (const r of rules) {
    let t = compiled.get(r);
    if (!t) compiled.set(r, (t = tokens(r.pattern)));
    if (!matches(t, target)) continue;
    const priority = referencePriority(r.pattern);
    if (!best || priority > best.priority || (priority === best.priority && r.allow && !best.allow)) best = { allow: r.allow, priority };
  }
  return { allowed: best ? best.allow : true, priority: best ? best.priority : -1 };
}
