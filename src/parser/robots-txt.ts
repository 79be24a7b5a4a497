// The RobotsTxt object: answers checks from the model. Nothing is compiled at parse time: the policy
// of the groups a crawler uses is found on its first check (a file names dozens of groups; a crawler
// uses one or two) and cached per User-Agent string; see policy.ts for how a policy answers.

import { buildModel, rulePattern, type Model } from './model.js';
import { Policy } from './policy.js';
import { isValidProductToken, productToken } from './product-token.js';
import type { RuleIndex } from './rule-index.js';
import { locateTarget, targetEnd, targetStart, targetText } from './target.js';
import type { AgentPolicy, GroupInfo, MatchResult, ParseOptions, RobotsTxt, RuleRef, UserAgentLine, Diagnostic, UsageLine, UsageMatch } from './types.js';
import { allUsageLines, matchUsage } from './usage-lines.js';

const MAX_CACHED_AGENTS = 256;
/** Policies (and compiled indexes) kept at most: each may cost about the file's size. */
const MAX_CACHED_POLICIES = 64;

class ParsedRobotsTxt implements RobotsTxt {
  readonly sitemaps: readonly string[];
  private readonly byAgent = new Map<string, Policy>();
  private readonly byToken = new Map<string, Policy>();
  private indexes: Map<string, RuleIndex> | undefined;
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
    return this.policy(userAgent).isAllowed(url);
  }

  check(url: string | URL, userAgent: string): MatchResult {
    return this.policy(userAgent).check(url);
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

  policyFor(productTokens: string | readonly string[]): AgentPolicy {
    if (typeof productTokens === 'string') return this.policy(productTokens).detach();
    if (!Array.isArray(productTokens)) throw new TypeError(`robots-gate: productTokens must be a string or an array of strings, got ${typeof productTokens}`);
    const keys: string[] = [];
    for (const t of productTokens) {
      if (typeof t !== 'string') throw new TypeError(`robots-gate: each product token must be a string, got ${typeof t}`);
      keys.push(tokenKey(t));
    }
    // The first token some group names decides; only when none is named do the `*` groups apply.
    const named = keys.find((k) => k !== '' && this.named(k) !== undefined);
    return this.tokenPolicy(named ?? '').detach();
  }

  /** The policy for a User-Agent string, cached by the exact string so repeat checks allocate nothing. */
  private policy(userAgent: string): Policy {
    const cached = this.byAgent.get(userAgent);
    if (cached) return cached;
    if (typeof userAgent !== 'string') throw new TypeError(`robots-gate: userAgent must be a string, got ${typeof userAgent}`);
    const policy = this.tokenPolicy(tokenKey(userAgent));
    if (this.byAgent.size >= MAX_CACHED_AGENTS) this.byAgent.clear();
    this.byAgent.set(userAgent, policy);
    return policy;
  }

  private tokenPolicy(key: string): Policy {
    let policy = this.byToken.get(key);
    if (!policy) {
      policy = this.buildPolicy(key);
      if (this.byToken.size >= MAX_CACHED_POLICIES) this.byToken.clear();
      this.byToken.set(key, policy);
    }
    return policy;
  }

  /** For each token a user-agent line names: its groups and, in each, the first line naming it, as
   *  flat pairs [group, line index, ...] in file order. Built on the first policy. */
  private byNamedToken: Map<string, number[]> | undefined;

  private namedTokens(): Map<string, number[]> {
    const groups = this.model.groups;
    if (!this.byNamedToken) {
      // One pass over the user-agent lines, so a new name costs a map lookup, not a scan of every
      // group (a file may hold 100,000 groups, and a caller may try as many names).
      const map = new Map<string, number[]>();
      for (let i = 0; i < groups.length; i++) {
        const tokens = groups[i]!.agentTokens;
        for (let j = 0; j < tokens.length; j++) {
          const list = map.get(tokens[j]!);
          if (!list) map.set(tokens[j]!, [i, j]);
          else if (list[list.length - 2] !== i) list.push(i, j);
        }
      }
      this.byNamedToken = map;
    }
    return this.byNamedToken;
  }

  names(token: string): boolean {
    if (typeof token !== 'string') return false;
    if (token === '*') return this.named('*') !== undefined;
    return isValidProductToken(token) && this.named(token.toLowerCase()) !== undefined;
  }

  private lookups = 0;

  /** The pairs of namedTokens() for one token. The first two lookups (a crawler's token, then `*`)
   *  scan the user-agent lines instead: on the small files most origins serve, building the map cost
   *  more than the scans, and a crawler asks one or two names. */
  private named(wanted: string): number[] | undefined {
    if (this.byNamedToken || ++this.lookups > 2) return this.namedTokens().get(wanted);
    const groups = this.model.groups;
    let list: number[] | undefined;
    for (let i = 0; i < groups.length; i++) {
      const tokens = groups[i]!.agentTokens;
      for (let j = 0; j < tokens.length; j++) {
        if (tokens[j] !== wanted) continue;
        if (!list) list = [i, j];
        else if (list[list.length - 2] !== i) list.push(i, j);
      }
    }
    return list;
  }

  private buildPolicy(token: string): Policy {
    const groups = this.model.groups;
    for (const wanted of token === '' ? ['*'] : [token, '*']) {
      const pairs = this.named(wanted);
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
        return this.makePolicy(ids, lines, indexes);
      }
      // A name no group mentions gets the `*` policy itself: one object for every such name, however
      // many a caller (or whoever picks its User-Agent strings) tries.
      if (wanted !== '*') return this.tokenPolicy('');
    }
    return this.makePolicy([], [], []);
  }

  /** The policy of the merged groups `groupIds`, named in each by its user-agent line `agentIndexes[k]`. */
  private makePolicy(groupIds: number[], agentLines: { value: string; line: number }[], agentIndexes: number[]): Policy {
    const model = this.model;
    const ref = groupIds.length
      ? Object.freeze({ userAgents: agentLines.map((a) => a.value), lines: agentLines.map((a) => a.line) })
      : null;
    // A Crawl-delay applies to the user-agent lines above it in its group: in
    // `User-agent: a / Crawl-delay: 5 / User-agent: b / Disallow: /x` the rule is a's and b's, the
    // delay only a's (the reading crawler-commons' conformance cases take; Crawl-delay is not in RFC 9309).
    // The first one that applies, in file order, wins.
    let delay: number | undefined;
    let count = 0;
    for (let k = 0; k < groupIds.length; k++) {
      const g = model.groups[groupIds[k]!]!;
      count += g.ruleEnd - g.ruleStart;
      if (delay !== undefined) continue;
      for (const d of g.crawlDelays) {
        if (d.agents > agentIndexes[k]!) {
          delay = d.seconds;
          break;
        }
      }
    }
    const ids = new Int32Array(count);
    let n = 0;
    for (const id of groupIds) {
      const g = model.groups[id]!;
      for (let i = g.ruleStart; i < g.ruleEnd; i++) ids[n++] = i;
    }
    return new Policy(model, ids, count, ref, delay, groupIds, this.sharedIndex);
  }

  /** Tokens named by the same groups share one index: on a big file an index costs about the file's
   *  size, and a caller cycling through many names must not multiply it. */
  private readonly sharedIndex = (key: string, build: () => RuleIndex): RuleIndex => {
    const indexes = (this.indexes ??= new Map());
    const shared = indexes.get(key);
    if (shared) return shared;
    const index = build();
    if (indexes.size >= MAX_CACHED_POLICIES) indexes.clear();
    indexes.set(key, index);
    return index;
  };
}

/** The key a User-Agent string or product token is looked up by: its product token, lower-cased;
 *  `''` for a crawler whose name is not a product token (`Jävla-Bot`): §2.2.1, named by no group. The
 *  token is compared whole: `AI2Bot` is named by `User-agent: AI2Bot`, never by `User-agent: AI`. */
function tokenKey(userAgent: string): string {
  const token = productToken(userAgent);
  return isValidProductToken(token) ? token.toLowerCase() : '';
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
