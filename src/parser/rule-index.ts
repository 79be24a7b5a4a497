// The rules of one applicable (merged) group, indexed by the literal prefix of each pattern, so a
// check costs about the same on a 30,000-rule file as on a 10-rule one (DESIGN.md "Where the cost is").
//
// Every rule's first piece (the text before its first `*`) must be a prefix of the path for the rule
// to match. The distinct first pieces are sorted; for a path P, the largest entry E <= P is found by
// binary search, and every entry that is a prefix of P is E or one of E's ancestors in the
// "longest proper prefix" chain (if Q is a prefix of P and Q <= E <= P, then E starts with Q). Walking
// that chain yields exactly the candidate rules, each entry's rules sorted best first (most octets,
// then Allow on a tie: RFC 9309 §2.2.2), so most checks stop at the first candidate.
//
// Memory: rules live in typed arrays; a prefix is a range of the file's own text when the pattern is
// already in normal form (the common case), else a range of one joined string of normalised prefixes.

import { compilePattern, matchRest } from './pattern.js';

/** Where a group's rules are: ids into a rule table over a text. */
export interface RuleSource {
  readonly text: string;
  /** Rule i's pattern is text[rules[3i], rules[3i + 1]); rules[3i + 2] its line, positive for
   *  allow, negative for disallow. One table, not three: a small file's parse allocates little. */
  readonly rules: ArrayLike<number>;
}

// A sorted rule's fields in RuleIndex.table.
const RULE = 5;
const START = 0;
const LENGTH = 1;
const PRIORITY = 2;
const FLAGS = 3;
const ID = 4;

const ALLOW = 1;
const ANCHORED = 2;
const AUX = 4;
/** Found through its entry's trigram buckets, not by the entry's linear scan. */
const BUCKETED = 8;
/** An entry with at least this many wildcard rules gets trigram buckets. */
const BUCKET_MIN = 16;

export class RuleIndex {
  /**
   * Per sorted rule k, RULE numbers from RULE * k: prefix start and length (in `text` or, with AUX, in
   * `aux`), priority, flags | (index in `rests` + 1) << 8, model rule id. One table, not six: a check
   * across many cached origins reads one cache line per rule it looks at, not one per field.
   */
  private readonly table: Int32Array;
  private readonly rests: (readonly string[])[];
  /** Per entry (distinct prefix) e: its first sorted rule at 2e, its parent entry (-1 for none) at 2e + 1. */
  private readonly entries: Int32Array;
  private readonly text: string;
  private readonly aux: string;
  /**
   * For entries with many wildcard rules (`Disallow: /*.embed.html` × 2,000): entry → trigram → its
   * rules, best first. A wildcard rule can match only if the target contains its longest literal
   * piece, so only the rules whose piece's first three characters occur in the target are tried.
   */
  private readonly buckets = new Map<number, Map<number, Int32Array>>();
  /** Per sorted rule: the check number that last tried it (a rule sits in one bucket, but a trigram may recur). */
  private readonly tried: Int32Array;
  private checkNumber = 0;
  /** Rules after merging identical ones. */
  readonly size: number;

  constructor(source: RuleSource, ids: ArrayLike<number>) {
    const text = source.text;
    this.text = text;
    // Identical rules (same type, same text) are merged before anything is compiled: the first one is
    // kept for its line number, and a file of 15,000 copies of one line compiles one pattern. Rules
    // are told apart by a hash of their range of the text, compared in place on a collision, so no
    // rule's text is copied to be looked up.
    const firstByHash = new Map<number, number>(); // hash -> index in unique, or -1: see collisions
    let collisions: Map<number, number[]> | undefined;
    const unique: number[] = [];
    let previousStart = -1;
    let previousLength = -1;
    let previousAllow = false;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      const start = source.rules[3 * id]!;
      const length = source.rules[3 * id + 1]! - start;
      const allow = source.rules[3 * id + 2]! > 0;
      // Runs of one repeated line are the common case: compare with the previous rule first.
      if (allow === previousAllow && length === previousLength && sameRange(text, previousStart, start, length)) continue;
      previousStart = start;
      previousLength = length;
      previousAllow = allow;
      const h = rangeHash(text, start, length, allow);
      const seen = firstByHash.get(h);
      if (seen !== undefined) {
        if (seen >= 0) {
          const other = unique[seen]!;
          if (isSameRule(source, other, start, length, allow)) continue;
        } else if (collisions!.get(h)!.some((u) => isSameRule(source, unique[u]!, start, length, allow))) continue;
        // A real collision: keep every rule with this hash in a list.
        if (seen >= 0) {
          collisions ??= new Map();
          collisions.set(h, [seen]);
          firstByHash.set(h, -1);
        }
        collisions!.get(h)!.push(unique.length);
      } else firstByHash.set(h, unique.length);
      unique.push(id);
    }
    const n = unique.length;
    this.size = n;
    const pStart = new Int32Array(n);
    const pLength = new Int32Array(n);
    const priority = new Int32Array(n);
    const flags = new Uint8Array(n);
    const restIndex = new Int32Array(n).fill(-1);
    const heads: string[] = new Array(n);
    const rests: (readonly string[])[] = [];
    const auxParts: string[] = [];
    let auxLength = 0;
    for (let i = 0; i < n; i++) {
      const id = unique[i]!;
      const start = source.rules[3 * id]!;
      const p = compilePattern(text.slice(start, source.rules[3 * id + 1]!));
      const head = p.pieces[0]!;
      heads[i] = head;
      let f = (source.rules[3 * id + 2]! > 0 ? ALLOW : 0) | (p.anchored ? ANCHORED : 0);
      if (text.startsWith(head, start)) {
        pStart[i] = start;
      } else {
        f |= AUX;
        pStart[i] = auxLength;
        auxParts.push(head);
        auxLength += head.length;
      }
      pLength[i] = head.length;
      priority[i] = p.priority;
      flags[i] = f;
      if (p.pieces.length > 1) {
        restIndex[i] = rests.length;
        rests.push(p.pieces.slice(1));
      }
    }
    const aux = auxParts.join('');
    this.aux = aux;
    // Native string comparison (UTF-16 code units, as `<` does): many rules share long prefixes, and a
    // comparator walking them character by character was a quarter of the index's cost.
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => {
      const ha = heads[a]!;
      const hb = heads[b]!;
      if (ha !== hb) return ha < hb ? -1 : 1;
      return priority[b]! - priority[a]! || (flags[b]! & ALLOW) - (flags[a]! & ALLOW) || a - b;
    });
    // Lay the sorted rules out in their final arrays and find the entries (distinct prefixes).
    const table = new Int32Array(RULE * n);
    this.table = table;
    this.rests = rests;
    const entryFirst: number[] = [];
    const entryParent: number[] = [];
    const stack: number[] = []; // entry numbers whose prefix is a prefix of the current one
    let previous = -1;
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      table[RULE * k + START] = pStart[i]!;
      table[RULE * k + LENGTH] = pLength[i]!;
      table[RULE * k + PRIORITY] = priority[i]!;
      table[RULE * k + FLAGS] = flags[i]! | ((restIndex[i]! + 1) << 8);
      table[RULE * k + ID] = unique[i]!;
      if (previous >= 0 && heads[previous] === heads[i]) continue;
      previous = i;
      while (stack.length) {
        const top = order[entryFirst[stack[stack.length - 1]!]!]!;
        // Is the top entry's prefix a prefix of this one?
        const lt = pLength[top]!;
        if (lt <= pLength[i]! && heads[i]!.startsWith(heads[top]!)) break;
        stack.pop();
      }
      entryParent.push(stack.length ? stack[stack.length - 1]! : -1);
      entryFirst.push(k);
      stack.push(entryFirst.length - 1);
    }
    const entries = new Int32Array(2 * entryFirst.length);
    for (let e = 0; e < entryFirst.length; e++) {
      entries[2 * e] = entryFirst[e]!;
      entries[2 * e + 1] = entryParent[e]!;
    }
    this.entries = entries;
    for (let e = 0; e < entryFirst.length; e++) {
      const first = entryFirst[e]!;
      const last = e + 1 < entryFirst.length ? entryFirst[e + 1]! : n;
      if (last - first < BUCKET_MIN) continue;
      // Each rule goes in the bucket of the rarest trigram of its longest piece, counted over the
      // entry's rules: keyed by the piece's first trigram, 31,000 rules `/*aaa<N>z` shared one
      // bucket, and a path of `a`s tried all of them at every position (770 ms a check).
      const longestOf: string[] = [];
      const seen = new Map<number, number>();
      for (let k = first; k < last; k++) {
        const ri = (table[RULE * k + FLAGS]! >> 8) - 1;
        let longest = '';
        if (ri >= 0) for (const piece of rests[ri]!) if (piece.length > longest.length) longest = piece;
        longestOf.push(longest);
        for (let i = 0; i + 3 <= longest.length; i++) {
          const code = trigram(longest, i);
          seen.set(code, (seen.get(code) ?? 0) + 1);
        }
      }
      const lists = new Map<number, number[]>();
      let bucketed = 0;
      for (let k = first; k < last; k++) {
        const longest = longestOf[k - first]!;
        if (longest.length < 3) continue;
        let code = trigram(longest, 0);
        let fewest = seen.get(code)!;
        for (let i = 1; i + 3 <= longest.length && fewest > 1; i++) {
          const c = trigram(longest, i);
          const n = seen.get(c)!;
          if (n < fewest) {
            code = c;
            fewest = n;
          }
        }
        const list = lists.get(code);
        if (list) list.push(k);
        else lists.set(code, [k]);
        bucketed++;
      }
      if (bucketed < BUCKET_MIN) continue;
      const packed = new Map<number, Int32Array>();
      for (const [code, list] of lists) {
        packed.set(code, Int32Array.from(list));
        for (const k of list) table[RULE * k + FLAGS]! |= BUCKETED;
      }
      this.buckets.set(e, packed);
    }
    this.tried = new Int32Array(this.buckets.size ? n : 0);
  }

  /**
   * The deciding rule for text[start, end) (a normalised path + query): its id in the model's rule
   * table, or -1 when no rule matches. Allocates nothing.
   */
  match(target: string, start: number, end: number): number {
    const table = this.table;
    const entries = this.entries;
    const count = entries.length >> 1;
    // Binary search: the last entry whose prefix is <= the target.
    let lo = 0;
    let hi = count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = RULE * entries[2 * mid]!;
      if (compareToTarget(table[r + FLAGS]! & AUX ? this.aux : this.text, table[r + START]!, table[r + LENGTH]!, target, start, end) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return -1;
    const r0 = RULE * entries[2 * found]!;
    const common = commonLength(table[r0 + FLAGS]! & AUX ? this.aux : this.text, table[r0 + START]!, table[r0 + LENGTH]!, target, start, end);
    const n = table.length / RULE;
    let best = -1;
    let bestPriority = -1;
    for (let e = found; e >= 0; e = entries[2 * e + 1]!) {
      const first = entries[2 * e]!;
      const length = table[RULE * first + LENGTH]!;
      if (length > common) continue;
      const last = e + 1 < count ? entries[2 * e + 2]! : n;
      for (let k = first; k < last; k++) {
        const p = table[RULE * k + PRIORITY]!;
        const f = table[RULE * k + FLAGS]!;
        if (p < bestPriority || (p === bestPriority && (table[RULE * best + FLAGS]! & ALLOW || !(f & ALLOW)))) break;
        if (f & BUCKETED) continue;
        const ri = (f >> 8) - 1;
        if (matchRest(ri < 0 ? null : this.rests[ri]!, (f & ANCHORED) !== 0, target, start + length, end)) {
          best = k;
          bestPriority = p;
          break;
        }
      }
      const buckets = this.buckets.size === 0 ? undefined : this.buckets.get(e);
      if (buckets === undefined) continue;
      let check = (this.checkNumber + 1) | 0;
      if (check === 0) {
        this.tried.fill(0);
        check = 1;
      }
      this.checkNumber = check;
      for (let i = start + length; i + 3 <= end; i++) {
        const list = buckets.get(trigram(target, i));
        if (list === undefined) continue;
        for (let j = 0; j < list.length; j++) {
          const k = list[j]!;
          const p = table[RULE * k + PRIORITY]!;
          const f = table[RULE * k + FLAGS]!;
          // Lists run best first; on a full tie the earlier rule of this entry wins, as in the
          // entry's own scan above (and as rule-scan.ts decides), whatever trigram found it first.
          if (p < bestPriority) break;
          if (p === bestPriority) {
            const bestAllow = table[RULE * best + FLAGS]! & ALLOW;
            if ((bestAllow && !(f & ALLOW)) || (bestAllow === (f & ALLOW) && !(best >= first && best < last && k < best))) break;
          }
          if (this.tried[k] === check) continue;
          this.tried[k] = check;
          if (matchRest(this.rests[(f >> 8) - 1]!, (f & ANCHORED) !== 0, target, start + length, end)) {
            best = k;
            bestPriority = p;
            break;
          }
        }
      }
    }
    return best < 0 ? -1 : table[RULE * best + ID]!;
  }
}

function sameRange(text: string, a: number, b: number, length: number): boolean {
  if (a === b) return true;
  for (let k = 0; k < length; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
}

function isSameRule(source: RuleSource, id: number, start: number, length: number, allow: boolean): boolean {
  const r = source.rules;
  const s = r[3 * id]!;
  return r[3 * id + 2]! > 0 === allow && r[3 * id + 1]! - s === length && sameRange(source.text, s, start, length);
}

/** FNV-1a over a range of the text and the rule's type. */
function rangeHash(text: string, start: number, length: number, allow: boolean): number {
  let h = allow ? 0x811c9dc5 : 0x050c5d1f;
  for (let k = 0; k < length; k++) h = Math.imul(h ^ text.charCodeAt(start + k), 0x01000193);
  return h | 0;
}

/** Three characters of normalised (ASCII) text as one number. */
function trigram(s: string, i: number): number {
  return (s.charCodeAt(i) << 14) | (s.charCodeAt(i + 1) << 7) | s.charCodeAt(i + 2);
}

/** Compare prefix s[o, o+len) with target[start, end) by UTF-16 code units, like `<` on strings. */
function compareToTarget(s: string, o: number, len: number, target: string, start: number, end: number): number {
  const m = end - start;
  const n = len < m ? len : m;
  for (let k = 0; k < n; k++) {
    const d = s.charCodeAt(o + k) - target.charCodeAt(start + k);
    if (d !== 0) return d;
  }
  return len - m;
}

function commonLength(s: string, o: number, len: number, target: string, start: number, end: number): number {
  const m = end - start;
  const n = len < m ? len : m;
  let k = 0;
  while (k < n && s.charCodeAt(o + k) === target.charCodeAt(start + k)) k++;
  return k;
}
