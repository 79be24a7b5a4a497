// The first checks of a policy: a direct scan of its rules, with nothing built beforehand. Most rules
// are plain literals (`Disallow: /private/`) and are compared in place, character by character, with
// the target, so a rule that does not match costs a character or two; a rule with `*`, `$`, `%` or
// non-ASCII text is compiled (pattern.ts) the first time its literal start matches, and kept.
//
// The scan picks the rule RuleIndex.match picks, tie for tie, so a policy answers the same before and
// after its index is built: the most octets (RFC 9309 §2.2.2), then Allow over Disallow, then the
// longer literal first piece (the index walks longer prefixes first), then the earlier rule.

import { PLAIN } from './normalize.js';
import { compilePattern, matchRest } from './pattern.js';
import type { RuleSource } from './rule-index.js';

/** A rule compiled for the scan: first piece, the pieces after it, `$`, and its octets. */
export interface ScanPattern {
  readonly head: string;
  readonly rest: readonly string[] | null;
  readonly anchored: boolean;
  readonly priority: number;
}

/** Rules a scan compiles at most (over a policy's checks; a first check's compiles are not kept);
 *  past that, the index is the cheaper road. */
export const SCAN_COMPILE_BUDGET = 64;
/** Characters of target one check may spend matching wildcard rules in place (about a
 *  millisecond); past that, the index is the cheaper road. */
const SCAN_WILDCARD_BUDGET = 1 << 18;
/** scanRules' answer when it would compile past the budget: build the index instead. */
export const NEEDS_INDEX = -2;

/**
 * The deciding rule among `ids` (rule ids into `source`; null: the ids first to first + count - 1) for
 * target[start, end), a normalised path + query: its id, -1 when none matches, or NEEDS_INDEX.
 * @param cache.scanCache the rules compiled so far, by id; created and filled in as rules need it.
 */
export function scanRules(
  source: RuleSource,
  ids: readonly number[] | null,
  first: number,
  count: number,
  cache: { scanCache: Map<number, ScanPattern> | undefined },
  target: string,
  start: number,
  end: number,
): number {
  const text = source.text;
  const rules = source.rules;
  let best = -1;
  let bestPriority = -1;
  let bestAllow = false;
  let bestHead = -1;
  let previousStart = -1;
  let previousLength = -1;
  let previousAllow = false;
  let wild = 0;
  for (let k = 0; k < count; k++) {
    const id = ids === null ? first + k : ids[k]!;
    const s = rules[3 * id]!;
    const e = rules[3 * id + 1]!;
    const allow = rules[3 * id + 2]! > 0;
    // A run of one repeated line (15,000 copies, in hostile files) is decided by its first copy.
    if (allow === previousAllow && e - s === previousLength && sameRange(text, previousStart, s, e - s)) continue;
    previousStart = s;
    previousLength = e - s;
    previousAllow = allow;
    // The literal start, compared in place while its characters are plain.
    let i = s;
    let j = start;
    let c = 0;
    while (i < e) {
      c = text.charCodeAt(i);
      if (c >= 128 || PLAIN[c] === 0) break;
      // A plain character is its own normal form: a difference here is a mismatch of the first piece.
      if (j === end || target.charCodeAt(j) !== c) break;
      i++;
      j++;
    }
    let priority: number;
    let head: number;
    if (i === e) {
      priority = head = e - s;
    } else if (c < 128 && PLAIN[c] === 1) {
      continue; // a plain character differed
    } else if ((c === 42 || (c === 36 && i === e - 1)) && plainRest(text, i, e)) {
      // `*`s, plain characters and a final `$`: every octet counts one, and the pieces are ranges of
      // the text, matched in place.
      priority = e - s;
      head = i - s;
      if (priority < bestPriority) continue;
      // Each costs up to the rest of the target: 31,000 `/*aaa<N>z` against a path of 8,000 `a`s
      // took 770 ms a check. Past the budget the index (trigram buckets) is the cheaper road.
      wild += end - j + 1;
      if (wild > SCAN_WILDCARD_BUDGET) return NEEDS_INDEX;
      if (!matchPlainRest(text, i, e, target, j, end)) continue;
    } else {
      const compiled = (cache.scanCache ??= new Map());
      let p = compiled.get(id);
      if (p === undefined) {
        if (compiled.size >= SCAN_COMPILE_BUDGET) return NEEDS_INDEX;
        compiled.set(id, (p = scanPattern(text.slice(s, e))));
      }
      head = p.head.length;
      if (start + head > end || !target.startsWith(p.head, start)) continue;
      priority = p.priority;
      // Cheaper than matching the rest: a rule that cannot win is not tried.
      if (priority < bestPriority) continue;
      if (!matchRest(p.rest, p.anchored, target, start + head, end)) continue;
    }
    if (
      priority > bestPriority ||
      (priority === bestPriority && ((allow && !bestAllow) || (allow === bestAllow && head > bestHead)))
    ) {
      best = id;
      bestPriority = priority;
      bestAllow = allow;
      bestHead = head;
    }
  }
  return best;
}

/** Is text[i, e) made of `*`, plain characters and at most a final `$`? */
function plainRest(text: string, i: number, e: number): boolean {
  for (; i < e; i++) {
    const c = text.charCodeAt(i);
    if (c === 42 || (c < 128 && PLAIN[c] === 1)) continue;
    if (c === 36 && i === e - 1) continue;
    return false;
  }
  return true;
}

/**
 * matchRest for a pattern whose rest text[i, e) passed plainRest: its pieces, split at `*`, matched
 * greedily left to right from target[pos], each on an octet boundary, exactly as pattern.ts matches
 * the compiled pieces (which are these same characters). Allocates nothing.
 */
function matchPlainRest(text: string, i: number, e: number, target: string, pos: number, end: number): boolean {
  // `/a$`: the first piece must end the target (with no `*` between, nothing may follow it).
  if (text.charCodeAt(i) === 36) return pos === end;
  const anchored = text.charCodeAt(e - 1) === 36;
  const stop = anchored ? e - 1 : e;
  for (;;) {
    while (i < stop && text.charCodeAt(i) === 42) i++;
    if (i >= stop) return anchored ? startsOctet(target, end) : true;
    let pe = i;
    while (pe < stop && text.charCodeAt(pe) !== 42) pe++;
    const len = pe - i;
    if (pe >= stop && anchored) {
      const at = end - len;
      return at >= pos && startsOctet(target, at) && sameText(text, i, target, at, len);
    }
    let at = -1;
    for (let k = pos; k + len <= end; k++) {
      if (sameText(text, i, target, k, len) && startsOctet(target, k)) {
        at = k;
        break;
      }
    }
    if (at < 0) return false;
    if (pe >= stop) return true;
    pos = at + len;
    i = pe;
  }
}

function sameText(a: string, ia: number, b: string, ib: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (a.charCodeAt(ia + k) !== b.charCodeAt(ib + k)) return false;
  return true;
}

/** Not inside a `%XX` escape (see pattern.ts). */
function startsOctet(text: string, at: number): boolean {
  return text.charCodeAt(at - 1) !== 37 && text.charCodeAt(at - 2) !== 37;
}

function sameRange(text: string, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
}

function scanPattern(raw: string): ScanPattern {
  const p = compilePattern(raw);
  return { head: p.pieces[0]!, rest: p.pieces.length > 1 ? p.pieces.slice(1) : null, anchored: p.anchored, priority: p.priority };
}
