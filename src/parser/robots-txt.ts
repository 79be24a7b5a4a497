// The RobotsTxt object: answers checks from the model. Nothing is compiled at parse time: the rules of
// the group a crawler uses are compiled and indexed on its first check (a file names dozens of groups;
// a crawler uses one or two), then cached per User-Agent string so repeat checks allocate nothing.

import { buildModel, rulePattern, type Model } from './model.js';
import { isValidProductToken, productToken } from './product-token.js';
import { RuleIndex } from './rule-index.js';
import { locateTarget, targetEnd, targetStart, targetText } from './target.js';
import type { GroupInfo, GroupRef, MatchResult, ParseOptions, RobotsTxt, RuleRef, UserAgentLine, Diagnostic, UsageLine, UsageMatch } from './types.js';
import { allUsageLines, matchUsage } from './usage-lines.js';

/** The group(s) that apply to one product token, compiled on first use. */
class Policy {
  private index: RuleIndex | undefined;
  readonly ref: GroupRef | null;
  readonly crawlDelay: number | undefined;

  constructor(
    private readonly model: Model,
    readonly groupIds: number[],
    agentLines: { value: string; line: number }[],
    agentIndexes: number[],
    private readonly indexes: Map<string, RuleIndex>,
  ) {
    this.ref = groupIds.length
      ? Object.freeze({ userAgents: agentLines.map((a) => a.value), lines: agentLines.map((a) => a.line) })
      : null;
    // A Crawl-delay applies to the user-agent lines above it in its group: in
    // `User-agent: a / Crawl-delay: 5 / User-agent: b / Disallow: /x` the rule is a's and b's, the
    // delay only a's (the reading crawler-commons' conformance cases take; Crawl-delay is not in RFC 9309).
    // The first one that applies, in file order, wins.
    let delay: number | undefined;
    for (let k = 0; k < groupIds.length && delay === undefined; k++) {
      const g = model.groups[groupIds[k]!]!;
      for (const d of g.crawlDelays) {
        if (d.agents > agentIndexes[k]!) {
          delay = d.seconds;
          break;
        }
      }
    }
    this.crawlDelay = delay;
  }

  rules(): RuleIndex {
    if (this.index) return this.index;
    // Tokens named by the same groups share one compiled index: on a big file an index costs about
    // the file's size, and a caller cycling through many names must not multiply it.
    const key = this.groupIds.join(',');
    const shared = this.indexes.get(key);
    if (shared) return (this.index = shared);
    const ids: number[] = [];
    for (const id of this.groupIds) {
      const g = this.model.groups[id]!;
      for (let i = g.ruleStart; i < g.ruleEnd; i++) ids.push(i);
    }
    if (this.indexes.size >= MAX_CACHED_POLICIES) this.indexes.clear();
    this.indexes.set(key, (this.index = new RuleIndex(this.model, ids)));
    return this.index;
  }
}

const MAX_CACHED_AGENTS = 256;
/** Policies (and compiled indexes) kept at most: each may cost about the file's size. */
const MAX_CACHED_POLICIES = 64;

class ParsedRobotsTxt implements RobotsTxt {
  readonly sitemaps: readonly string[];
  private readonly byAgent = new Map<string, Policy>();
  private readonly byToken = new Map<string, Policy>();
  private readonly indexes = new Map<string, RuleIndex>();
  private groupList: readonly GroupInfo[] | undefined;

  constructor(private readonly model: Model) {
    this.sitemaps = Object.freeze(model.sitemaps.slice());
  }

  get diagnostics(): readonly Diagnostic[] {
    return this.model.log.list;
  }

  get groups(): readonly GroupInfo[] {
    if (this.groupList) return this.groupList;
    const model = this.model;
    return (this.groupList = Object.freeze(
      model.groups.map((g): GroupInfo => {
        const userAgents: UserAgentLine[] = g.agentValues.map((value, i) =>
          Object.freeze({ value, token: g.agentTokens[i]!, line: g.agentLines[i]! }),
        );
        const rules: RuleRef[] = [];
        for (let i = g.ruleStart; i < g.ruleEnd; i++) {
          rules.push(ruleRef(model, i));
        }
        return Object.freeze({
          userAgents: Object.freeze(userAgents),
          rules: Object.freeze(rules),
          crawlDelay: g.crawlDelays.length ? Object.freeze({ seconds: g.crawlDelays[0]!.seconds, line: g.crawlDelays[0]!.line }) : undefined,
        });
      }),
    ));
  }

  isAllowed(url: string | URL, userAgent: string): boolean {
    const policy = this.policy(userAgent);
    locateTarget(url);
    if (policy.ref === null || isRobotsTxtPath()) return true;
    const rule = policy.rules().match(targetText, targetStart, targetEnd);
    return rule < 0 || this.model.ruleLines.get(rule) > 0;
  }

  check(url: string | URL, userAgent: string): MatchResult {
    const policy = this.policy(userAgent);
    locateTarget(url);
    if (policy.ref === null) return { allowed: true, rule: null, group: null };
    if (isRobotsTxtPath()) return { allowed: true, rule: null, group: policy.ref };
    const rule = policy.rules().match(targetText, targetStart, targetEnd);
    if (rule < 0) return { allowed: true, rule: null, group: policy.ref };
    const ref = ruleRef(this.model, rule);
    return { allowed: ref.type === 'allow', rule: ref, group: policy.ref };
  }

  crawlDelay(userAgent: string): number | undefined {
    return this.policy(userAgent).crawlDelay;
  }

  usage(url: string | URL, userAgent: string): UsageMatch {
    const policy = this.policy(userAgent);
    locateTarget(url);
    return matchUsage(this.model, policy.groupIds, targetText, targetStart, targetEnd);
  }

  private usageList: readonly UsageLine[] | undefined;

  get usageLines(): readonly UsageLine[] {
    return (this.usageList ??= allUsageLines(this.model));
  }

  /** The policy for a User-Agent string, cached by the exact string so repeat checks allocate nothing. */
  private policy(userAgent: string): Policy {
    const cached = this.byAgent.get(userAgent);
    if (cached) return cached;
    if (typeof userAgent !== 'string') throw new TypeError(`robots-gate: userAgent must be a string, got ${typeof userAgent}`);
    const token = productToken(userAgent);
    // §2.2.1: a crawler whose name is not a product token (`Jävla-Bot`) is named by no group. The
    // token is compared whole: `AI2Bot` is named by `User-agent: AI2Bot`, never by `User-agent: AI`.
    const key = isValidProductToken(token) ? token.toLowerCase() : '';
    let policy = this.byToken.get(key);
    if (!policy) {
      policy = this.buildPolicy(key);
      if (this.byToken.size >= MAX_CACHED_POLICIES) this.byToken.clear();
      this.byToken.set(key, policy);
    }
    if (this.byAgent.size >= MAX_CACHED_AGENTS) this.byAgent.clear();
    this.byAgent.set(userAgent, policy);
    return policy;
  }

  /** For each token a user-agent line names: its groups and, in each, the first line naming it, as
   *  flat pairs [group, line index, ...] in file order. Built on the first policy. */
  private byNamedToken: Map<string, number[]> | undefined;

  private namedTokens(): Map<string, number[]> {
    if (this.byNamedToken) return this.byNamedToken;
    // One pass over the user-agent lines, so a new name costs a map lookup, not a scan of every
    // group (a file may hold 100,000 groups, and a caller may try as many names).
    const groups = this.model.groups;
    const map = new Map<string, number[]>();
    for (let i = 0; i < groups.length; i++) {
      const tokens = groups[i]!.agentTokens;
      for (let j = 0; j < tokens.length; j++) {
        const list = map.get(tokens[j]!);
        if (!list) map.set(tokens[j]!, [i, j]);
        else if (list[list.length - 2] !== i) list.push(i, j);
      }
    }
    return (this.byNamedToken = map);
  }

  names(token: string): boolean {
    if (typeof token !== 'string') return false;
    if (token === '*') return this.namedTokens().has('*');
    return isValidProductToken(token) && this.namedTokens().has(token.toLowerCase());
  }

  private buildPolicy(token: string): Policy {
    const groups = this.model.groups;
    const named = this.namedTokens();
    for (const wanted of token === '' ? ['*'] : [token, '*']) {
      const pairs = named.get(wanted);
      // §2.2.1: the groups naming the crawler merge; only if none does, the `*` groups (merged) apply.
      if (pairs) {
        const ids: number[] = [];
        const indexes: number[] = [];
        const lines: { value: string; line: number }[] = [];
        for (let k = 0; k < pairs.length; k += 2) {
          const g = groups[pairs[k]!]!;
          const at = pairs[k + 1]!;
          ids.push(pairs[k]!);
          indexes.push(at);
          lines.push({ value: g.agentValues[at]!, line: g.agentLines[at]! });
        }
        return new Policy(this.model, ids, lines, indexes, this.indexes);
      }
      // A name no group mentions gets the `*` policy itself: one object for every such name, however
      // many a caller (or whoever picks its User-Agent strings) tries.
      if (wanted !== '*') {
        const star = this.byToken.get('');
        if (star) return star;
      }
    }
    return new Policy(this.model, [], [], [], this.indexes);
  }
}

/** RFC 9309 §2.2.2: "/robots.txt" is implicitly allowed. */
function isRobotsTxtPath(): boolean {
  const len = 11; // '/robots.txt'.length
  if (targetEnd - targetStart < len || !targetText.startsWith('/robots.txt', targetStart)) return false;
  return targetEnd - targetStart === len || targetText.charCodeAt(targetStart + len) === 63 /* ? */;
}

function ruleRef(model: Model, i: number): RuleRef {
  const l = model.ruleLines.get(i);
  return Object.freeze({ type: l > 0 ? 'allow' : 'disallow', pattern: rulePattern(model, i), line: l > 0 ? l : -l });
}

/**
 * Parse a robots.txt body (RFC 9309). Any input gives a RobotsTxt; nothing throws.
 * @param body the raw bytes (preferred: BOM and invalid UTF-8 are handled) or the decoded text.
 * @param options.maxBytes octets parsed at most, default 512,000 (500 KiB, RFC 9309 §2.5).
 * @param options.url the robots.txt URL, to resolve relative `Sitemap:` lines.
 */
export function parseRobotsTxt(body: string | Uint8Array, options?: ParseOptions): RobotsTxt {
  return new ParsedRobotsTxt(buildModel(body, options));
}
