// The linter's consumer: the same tokenizer and model as matching (buildModel), plus the checks that
// only a linter wants and that matching's parse should not pay for.

import { compilePattern, patternKey, type CompiledPattern } from './pattern.js';
import { buildModel, rulePattern } from './model.js';
import type { Diagnostic, LintOptions } from './types.js';

interface LintRule {
  readonly allow: boolean;
  readonly source: string;
  readonly line: number;
  readonly pattern: CompiledPattern;
  readonly key: string;
}

/**
 * Every diagnostic for `body`: those of `parseRobotsTxt(body, options).diagnostics` plus
 * `conflicting-rules`, `duplicate-rule` and `shadowed-rule` (see DiagnosticCode), sorted by line
 * then column. Never throws.
 */
export function lintRobotsTxt(body: string | Uint8Array, options?: LintOptions): Diagnostic[] {
  const model = buildModel(body, options);
  const { log, groups, rules: table } = model;
  for (const g of groups) {
    const rules: LintRule[] = [];
    for (let i = g.ruleStart; i < g.ruleEnd; i++) {
      const l = table[3 * i + 2]!;
      const source = rulePattern(model, i);
      const pattern = compilePattern(source);
      // Same match key and same octets: the two rules decide the same URLs the same way.
      rules.push({ allow: l > 0, source, line: Math.abs(l), pattern, key: patternKey(pattern) + ' ' + pattern.priority });
    }
    checkGroup(rules, (code, severity, rule) => log.add(code, severity, rule.line, 1, rule.source));
  }
  return log.list.slice().sort((a, b) => a.line - b.line || (a.column ?? 1) - (b.column ?? 1));
}

type Report = (code: 'conflicting-rules' | 'duplicate-rule' | 'shadowed-rule', severity: 'warning' | 'info', rule: LintRule) => void;

function checkGroup(rules: LintRule[], report: Report): void {
  // Exact duplicates and Allow/Disallow pairs, by pattern in normal form.
  const first = new Map<string, LintRule>();
  const firstOther = new Map<string, LintRule>();
  for (const r of rules) {
    const same = first.get((r.allow ? 'A' : 'D') + r.key);
    if (same) {
      report('duplicate-rule', 'info', r);
      continue;
    }
    first.set((r.allow ? 'A' : 'D') + r.key, r);
    const other = firstOther.get((r.allow ? 'D' : 'A') + r.key);
    // RFC 9309 §2.2.2: of two equivalent rules the Allow is used, so the Disallow never decides.
    if (other) report('conflicting-rules', 'warning', r.allow ? other : r);
    firstOther.set((r.allow ? 'A' : 'D') + r.key, r);
  }
  // Shadowing: a plain-prefix rule S (`/a` or `/a*`) matches every URL that any rule R whose first
  // piece starts with S's text matches; if S also has more octets, R can never decide.
  const prefixRules = new Map<string, LintRule[]>();
  for (const r of first.values()) {
    if (r.pattern.pieces.length === 1 && !r.pattern.anchored) {
      const list = prefixRules.get(r.pattern.pieces[0]!);
      if (list) list.push(r);
      else prefixRules.set(r.pattern.pieces[0]!, [r]);
    }
  }
  // Only the lengths some prefix rule has are looked up: trying every length of a 500 KiB rule's
  // first piece hashed a new prefix string per length, quadratic in the rule's length.
  const lengths = [...new Set([...prefixRules.keys()].map((k) => k.length))].sort((a, b) => a - b);
  for (const r of first.values()) {
    const head = r.pattern.pieces[0]!;
    let shadowed = false;
    for (let i = 0; i < lengths.length && lengths[i]! <= head.length && !shadowed; i++) {
      const len = lengths[i]!;
      const candidates = prefixRules.get(len === head.length ? head : head.slice(0, len));
      if (!candidates) continue;
      for (const s of candidates) {
        if (s === r) continue;
        const p = s.pattern.priority;
        if (p > r.pattern.priority || (p === r.pattern.priority && s.allow && !r.allow && s.key !== r.key)) {
          shadowed = true;
          break;
        }
      }
    }
    if (shadowed) report('shadowed-rule', 'warning', r);
  }
}
