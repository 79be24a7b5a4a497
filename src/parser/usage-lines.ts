// Usage lines (Content-Usage, Content-Signal) of the model, for one crawler and one URL. They ride on
// the same groups as access (the aipref attach draft makes Content-Usage a rule of a group, matched
// by path like Allow/Disallow) but never change an access decision. Usage is rare and read once per
// fetched document, so patterns are compiled on each call rather than indexed.

import type { Model, UsageRecord } from './model.js';
import { compilePattern, matchRest } from './pattern.js';
import type { UsageLine, UsageMatch } from './types.js';

const NONE: UsageMatch = Object.freeze({ contentUsage: Object.freeze([]), contentSignal: Object.freeze([]) });

function lineOf(r: UsageRecord): UsageLine {
  return Object.freeze({ kind: r.kind, path: r.path, value: r.value, line: r.line, scope: r.group < 0 ? 'file' : 'group' });
}

/** Every usage line in file order. */
export function allUsageLines(model: Model): readonly UsageLine[] {
  return Object.freeze(model.usage.map(lineOf));
}

/**
 * The usage lines of `groupIds` (the groups `check` uses) that apply to the normalised target
 * text[start, end), plus file-level Content-Signal lines. Content-Usage: the longest matching path
 * wins (priority as RFC 9309 §2.2.2 counts octets); a line without a path covers every path with the
 * lowest priority; equal priorities are all returned, for the caller to combine.
 */
export function matchUsage(model: Model, groupIds: readonly number[], text: string, start: number, end: number): UsageMatch {
  if (model.usage.length === 0) return NONE;
  const groups = new Set(groupIds);
  const signals: UsageLine[] = [];
  let best: UsageLine[] = [];
  let bestPriority = -1;
  for (const r of model.usage) {
    if (r.kind === 'content-signal') {
      if (r.group < 0 || groups.has(r.group)) signals.push(lineOf(r));
      continue;
    }
    if (!groups.has(r.group)) continue;
    let priority = 0;
    if (r.path !== null) {
      const p = compilePattern(r.path);
      const head = p.pieces[0]!;
      if (!text.startsWith(head, start) || start + head.length > end) continue;
      const rest = p.pieces.length > 1 ? p.pieces.slice(1) : null;
      if (!matchRest(rest, p.anchored, text, start + head.length, end)) continue;
      priority = p.priority;
    }
    if (priority > bestPriority) {
      bestPriority = priority;
      best = [lineOf(r)];
    } else if (priority === bestPriority) {
      best.push(lineOf(r));
    }
  }
  return Object.freeze({ contentUsage: Object.freeze(best), contentSignal: Object.freeze(signals) });
}
