// The rules of one applicable (merged) group, indexed by the literal prefix of each pattern, so a
// check costs about the same on a 30,000-rule file as on a 10-rule one (DESIGN.md "Where the cost is").
//
// Every rule's first piece (the text before its first `*`) must be a prefix of the path for the rule
// to match. The distinct first pieces are sorted; for a path P, the largest entry E <= P is found by
// binary search, and every entry that is a prefix of P is E or one of E's ancestors in the
// "longest proper prefix" chain (if Q is a prefix of P and Q <= E <= P, then E starts with Q). Walking
// that chain yields exactly the candidate rules, each entry's rules sorted best first (most octets,
// then Allow on a tie: RFC 9309 §2.2.2), so most checks stop at the first candidate.

import { compilePattern, matchRest, type CompiledPattern } from './pattern.js';

export interface IndexedRule {
  readonly allow: boolean;
  readonly pattern: CompiledPattern;
  /** The pattern as written. */
  readonly source: string;
  readonly line: number;
}

interface Entry {
  readonly prefix: string;
  /** Index of the longest entry that is a proper prefix of this one, or -1. */
  parent: number;
  /** Best first: priority descending, allow before disallow. */
  readonly rules: IndexedRule[];
}

export interface RuleInput {
  readonly allow: boolean;
  readonly pattern: string;
  readonly line: number;
}

export class RuleIndex {
  private readonly entries: Entry[];
  readonly size: number;

  constructor(inputs: Iterable<RuleInput>) {
    // Identical rules (same type, same pattern after normalisation) are merged: the first one is kept
    // for its line number, which is the one a reader looks for.
    const seen = new Set<string>();
    const byPrefix = new Map<string, IndexedRule[]>();
    let size = 0;
    for (const r of inputs) {
      const pattern = compilePattern(r.pattern);
      const dedupe = (r.allow ? 'A' : 'D') + pattern.key;
      if (seen.has(dedupe)) continue;
      seen.add(dedupe);
      const prefix = pattern.pieces[0]!;
      let list = byPrefix.get(prefix);
      if (!list) byPrefix.set(prefix, (list = []));
      list.push({ allow: r.allow, pattern, source: r.pattern, line: r.line });
      size++;
    }
    this.size = size;
    const prefixes = [...byPrefix.keys()].sort();
    const entries: Entry[] = new Array(prefixes.length);
    const stack: number[] = [];
    for (let i = 0; i < prefixes.length; i++) {
      const prefix = prefixes[i]!;
      while (stack.length && !prefix.startsWith(entries[stack[stack.length - 1]!]!.prefix)) stack.pop();
      const rules = byPrefix.get(prefix)!;
      rules.sort(better);
      entries[i] = { prefix, parent: stack.length ? stack[stack.length - 1]! : -1, rules };
      stack.push(i);
    }
    this.entries = entries;
  }

  /** The deciding rule for text[start, end) (a normalised path + query), or null. Allocates nothing. */
  match(text: string, start: number, end: number): IndexedRule | null {
    const entries = this.entries;
    let lo = 0;
    let hi = entries.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (compare(entries[mid]!.prefix, text, start, end) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return null;
    const common = commonPrefix(entries[found]!.prefix, text, start, end);
    let best: IndexedRule | null = null;
    let bestPriority = -1;
    for (let i = found; i >= 0; i = entries[i]!.parent) {
      const entry = entries[i]!;
      if (entry.prefix.length > common) continue;
      const rules = entry.rules;
      for (let j = 0; j < rules.length; j++) {
        const rule = rules[j]!;
        const p = rule.pattern.priority;
        if (p < bestPriority || (p === bestPriority && (best!.allow || !rule.allow))) break;
        if (matchRest(rule.pattern, text, start, end)) {
          best = rule;
          bestPriority = p;
          break;
        }
      }
    }
    return best;
  }
}

function better(a: IndexedRule, b: IndexedRule): number {
  const d = b.pattern.priority - a.pattern.priority;
  if (d !== 0) return d;
  return a.allow === b.allow ? a.line - b.line : a.allow ? -1 : 1;
}

/** Compare `prefix` with text[start, end) by UTF-16 code units, like `<` on strings. */
function compare(prefix: string, text: string, start: number, end: number): number {
  const n = prefix.length;
  const m = end - start;
  const len = n < m ? n : m;
  for (let i = 0; i < len; i++) {
    const d = prefix.charCodeAt(i) - text.charCodeAt(start + i);
    if (d !== 0) return d;
  }
  return n - m;
}

function commonPrefix(prefix: string, text: string, start: number, end: number): number {
  const n = prefix.length;
  const m = end - start;
  const len = n < m ? n : m;
  let i = 0;
  while (i < len && prefix.charCodeAt(i) === text.charCodeAt(start + i)) i++;
  return i;
}
