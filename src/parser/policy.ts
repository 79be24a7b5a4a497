// The rules that apply to one crawler (RFC 9309 §2.2.1: the groups naming it, merged, else the `*`
// groups), and how its checks are answered. A broad crawl asks a few URLs per origin, so the first
// checks scan the rules directly (rule-scan.ts) and the index (rule-index.ts), which costs about 20
// scans to build, is built only once the policy has been asked enough for it to pay.
//
// A policy reads its rules from a RuleSource: the parse's model (RobotsTxt.check), or a compact copy
// of just these rules (RobotsTxt.policyFor), which keeps neither the file's text nor its model.

import { RuleIndex, type RuleSource } from './rule-index.js';
import { NEEDS_INDEX, scanRules, type ScanPattern } from './rule-scan.js';
import { locateTarget, targetEnd, targetStart, targetText } from './target.js';
import type { AgentPolicy, GroupRef, MatchResult, RuleRef } from './types.js';

/** Checks answered by scanning before the index is built. */
export const INDEX_AFTER_CHECKS = 16;
/** Up to this many rules, a scan is as fast as the index: none is built. */
const SCAN_ONLY_MAX_RULES = 4;

const NO_PAIRS: readonly number[] = [];

/** The scan cache of every policy's first check, emptied after it. */
const firstCheck: { scanCache: Map<number, ScanPattern> | undefined } = { scanCache: undefined };

/** Where a policy's index comes from when several policies share one (tokens named by the same groups). */
export type IndexCache = (key: string, build: () => RuleIndex) => RuleIndex;

export class Policy implements AgentPolicy {
  #index: RuleIndex | undefined;
  #checks = 0;
  /** The rules the scan has compiled (see scanRules); created on the first one. */
  scanCache: Map<number, ScanPattern> | undefined;
  readonly #count: number;
  #group: GroupRef | null | (() => GroupRef);
  /** Some group applies (else every URL is allowed). */
  readonly #applies: boolean;

  /**
   * @param ids rule ids into `source`, in file order; null for the run `first` to `first + count - 1`
   *   (one group's rules, the common case: no list is built).
   * @param group the groups that apply, or a function building their description when first asked;
   *   null when none applies.
   * @param pairs the model's groups these rules come from, each with the index of the user-agent line
   *   naming the crawler there ([group, line index, ...]; none for a detached policy); policies of the
   *   same groups share one index through `indexes`.
   */
  constructor(
    private readonly source: RuleSource,
    private readonly ids: readonly number[] | null,
    private readonly first: number,
    count: number,
    group: GroupRef | null | (() => GroupRef),
    readonly crawlDelay: number | undefined,
    private readonly pairs: readonly number[] = NO_PAIRS,
    private readonly indexes?: IndexCache,
  ) {
    this.#count = count;
    this.#group = group;
    this.#applies = group !== null;
  }

  get group(): GroupRef | null {
    const g = this.#group;
    return typeof g === 'function' ? (this.#group = g()) : g;
  }

  /** The model's groups these rules come from, in file order. */
  get groupIds(): number[] {
    const ids: number[] = [];
    for (let k = 0; k < this.pairs.length; k += 2) ids.push(this.pairs[k]!);
    return ids;
  }

  /** Rules in this policy (before identical ones are merged). */
  get size(): number {
    return this.#count;
  }

  isAllowed(url: string | URL): boolean {
    locateTarget(url);
    if (!this.#applies || isRobotsTxtPath(targetText, targetStart, targetEnd)) return true;
    const rule = this.match(targetText, targetStart, targetEnd);
    return rule < 0 || this.source.rules[3 * rule + 2]! > 0;
  }

  check(url: string | URL): MatchResult {
    locateTarget(url);
    return this.checkNormal(targetText, targetStart, targetEnd);
  }

  /**
   * check() for text[start, end), a path + query the caller knows to be in normal form (normalize.ts)
   * without dot segments (what locateTarget finds): the gate has scanned its URL once already.
   */
  checkNormal(text: string, start: number, end: number): MatchResult {
    if (!this.#applies) return { allowed: true, rule: null, group: null };
    if (isRobotsTxtPath(text, start, end)) return { allowed: true, rule: null, group: this.group };
    const rule = this.match(text, start, end);
    if (rule < 0) return { allowed: true, rule: null, group: this.group };
    const ref = this.ruleRef(rule);
    return { allowed: ref.type === 'allow', rule: ref, group: this.group };
  }

  /** The deciding rule's id in the source for text[start, end) (normalised path + query), or -1. */
  match(text: string, start: number, end: number): number {
    if (this.#index !== undefined) return this.#index.match(text, start, end);
    const checks = this.#checks <= INDEX_AFTER_CHECKS ? ++this.#checks : this.#checks;
    if (this.#count <= SCAN_ONLY_MAX_RULES || checks <= INDEX_AFTER_CHECKS) {
      // What the first check compiles is not kept: most origins of a broad crawl are asked a few
      // URLs, and each cached origin must stay small. The shared cache is emptied before and after.
      if (checks !== 1) {
        const rule = scanRules(this.source, this.ids, this.first, this.#count, this, text, start, end);
        if (rule !== NEEDS_INDEX) return rule;
      } else {
        firstCheck.scanCache?.clear();
        const rule = scanRules(this.source, this.ids, this.first, this.#count, firstCheck, text, start, end);
        firstCheck.scanCache?.clear();
        if (rule !== NEEDS_INDEX) return rule;
      }
    }
    this.scanCache = undefined;
    this.#index = this.indexes ? this.indexes(this.groupIds.join(','), () => this.#build()) : this.#build();
    return this.#index.match(text, start, end);
  }

  ruleRef(id: number): RuleRef {
    const rules = this.source.rules;
    const l = rules[3 * id + 2]!;
    const pattern = this.source.text.slice(rules[3 * id], rules[3 * id + 1]);
    return Object.freeze({ type: l > 0 ? 'allow' : 'disallow', pattern, line: l > 0 ? l : -l });
  }

  /** The same policy over a compact copy of its rules, holding no reference to the file or model. */
  detach(): Policy {
    const n = this.#count;
    const parts: string[] = new Array(n);
    const rules = this.source.rules;
    // Rule k is table[3k, 3k + 3): its range in the joined text, and its line.
    const table = new Int32Array(3 * n);
    let at = 0;
    for (let k = 0; k < n; k++) {
      const id = this.ids === null ? this.first + k : this.ids[k]!;
      const s = rules[3 * id]!;
      const e = rules[3 * id + 1]!;
      parts[k] = this.source.text.slice(s, e);
      table[3 * k] = at;
      at += e - s;
      table[3 * k + 1] = at;
      table[3 * k + 2] = rules[3 * id + 2]!;
    }
    // The group's user-agent values are slices of the file's text too.
    const g = this.group;
    const group = g && Object.freeze({ userAgents: g.userAgents.map((v) => flatCopy([v])), lines: g.lines.slice() });
    return new Policy({ text: flatCopy(parts), rules: table }, null, 0, n, group, this.crawlDelay);
  }

  #build(): RuleIndex {
    const ids = this.ids ?? Int32Array.from({ length: this.#count }, (_, k) => this.first + k);
    return new RuleIndex(this.source, ids);
  }
}

/**
 * The pieces joined into a new flat string of its own. A slice of a long string may be a view that
 * keeps the whole parent alive, and a slice or join of a two-byte string (a file with one character
 * past U+00FF anywhere, a comment's `–` say) is two-byte too, 2 bytes a character: a cached policy
 * must hold its rules' text only, as compactly as it can be held. A JSON round trip builds a flat
 * string, one byte a character when every character fits, and copies any string exactly (lone
 * surrogates included).
 */
function flatCopy(parts: string[]): string {
  return JSON.parse(JSON.stringify(parts.length === 1 ? parts[0]! : parts.join('')));
}

/** RFC 9309 §2.2.2: "The /robots.txt URI is implicitly allowed": that URI, not one with a query
 *  (`/robots.txt?x` is another resource, which the rules decide). */
function isRobotsTxtPath(text: string, start: number, end: number): boolean {
  return end - start === 11 && text.startsWith('/robots.txt', start);
}
