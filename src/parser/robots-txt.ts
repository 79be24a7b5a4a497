// The RobotsTxt object: answers checks from the model. Nothing is compiled at parse time: the policy
// of the groups a crawler uses is found on its first check (a file names dozens of groups; a crawler
// uses one or two) and cached per User-Agent string; see policy.ts for how a policy answers.

import { buildModel, rulePattern, type Model } from './model.js';
import { Policy } from './policy.js';
import { isValidProductToken, productToken } from './product-token.js';
import type { RuleIndex } from './rule-index.js';
import { locateTarget, targetEnd, targetStart, targetText } from './target.js';
import type { AgentPolicy, GroupInfo, GroupRef, MatchResult, ParseOptions, RobotsTxt, RuleRef, UserAgentLine, Diagnostic, UsageLine, UsageMatch } from './types.js';
import { allUsageLines, matchUsage } from './usage-lines.js';

const MAX_CACHED_AGENTS = 256;
/** Policies (and compiled indexes) kept at most: each may cost about the file's size. */
const MAX_CACHED_POLICIES = 64;

class ParsedRobotsTxt implements RobotsTxt {
  private sitemapList: readonly string[] | undefined;
  // The first User-Agent string and token asked are kept in fields, the others in maps made when a
  // second one comes: most files are asked for one crawler, and two maps cost a small file's rules.
  private firstAgent: string | undefined;
  private firstAgentPolicy: Policy | undefined;
  private byAgent: Map<string, Policy> | undefined;
  private firstToken: string | undefined;
  private firstTokenPolicy: Policy | undefined;
  private byToken: Map<string, Policy> | undefined;
  private indexes: Map<string, RuleIndex> | undefined;
  private groupList: readonly GroupInfo[] | undefined;

  constructor(private readonly model: Model) {}

  get sitemaps(): readonly string[] {
    return (this.sitemapList ??= Object.freeze(this.model.sitemaps.slice()));
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
    if (userAgent === this.firstAgent && this.firstAgentPolicy !== undefined) return this.firstAgentPolicy;
    const cached = this.byAgent?.get(userAgent);
    if (cached) return cached;
    if (typeof userAgent !== 'string') throw new TypeError(`robots-gate: userAgent must be a string, got ${typeof userAgent}`);
    const policy = this.tokenPolicy(tokenKey(userAgent));
    if (this.firstAgentPolicy === undefined) {
      this.firstAgent = userAgent;
      this.firstAgentPolicy = policy;
      return policy;
    }
    const map = (this.byAgent ??= new Map());
    if (map.size >= MAX_CACHED_AGENTS) map.clear();
    map.set(userAgent, policy);
    return policy;
  }

  private tokenPolicy(key: string): Policy {
    if (key === this.firstToken && this.firstTokenPolicy !== undefined) return this.firstTokenPolicy;
    let policy = this.byToken?.get(key);
    if (!policy) {
      policy = this.buildPolicy(key);
      if (this.firstTokenPolicy === undefined) {
        this.firstToken = key;
        this.firstTokenPolicy = policy;
        return policy;
      }
      const map = (this.byToken ??= new Map());
      if (map.size >= MAX_CACHED_POLICIES) map.clear();
      map.set(key, policy);
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
    // §2.2.1: the groups naming the crawler merge; only if none does, the `*` groups (merged) apply.
    if (token !== '') {
      const pairs = this.named(token);
      if (pairs) return this.makePolicy(pairs);
      // A name no group mentions gets the `*` policy itself: one object for every such name, however
      // many a caller (or whoever picks its User-Agent strings) tries.
      return this.tokenPolicy('');
    }
    return this.makePolicy(this.named('*') ?? NO_PAIRS);
  }

  /** The policy of the merged groups in `pairs` ([group, index of the user-agent line naming it, ...]). */
  private makePolicy(pairs: readonly number[]): Policy {
    const model = this.model;
    // A Crawl-delay applies to the user-agent lines above it in its group: in
    // `User-agent: a / Crawl-delay: 5 / User-agent: b / Disallow: /x` the rule is a's and b's, the
    // delay only a's (the reading crawler-commons' conformance cases take; Crawl-delay is not in RFC 9309).
    // The first one that applies, in file order, wins.
    let delay: number | undefined;
    let count = 0;
    for (let k = 0; k < pairs.length; k += 2) {
      const g = model.groups[pairs[k]!]!;
      count += g.ruleEnd - g.ruleStart;
      if (delay !== undefined) continue;
      for (const d of g.crawlDelays) {
        if (d.agents > pairs[k + 1]!) {
          delay = d.seconds;
          break;
        }
      }
    }
    // One group (the common case) is a run of rule ids; merged groups list theirs.
    let ids: number[] | null = null;
    if (pairs.length > 2) {
      ids = [];
      for (let k = 0; k < pairs.length; k += 2) {
        const g = model.groups[pairs[k]!]!;
        for (let i = g.ruleStart; i < g.ruleEnd; i++) ids.push(i);
      }
    }
    const first = pairs.length === 2 ? model.groups[pairs[0]!]!.ruleStart : 0;
    // The group's description is built when a check result or a caller first asks for it.
    const group = pairs.length === 0 ? null : () => groupRef(model, pairs);
    return new Policy(model, ids, first, count, group, delay, pairs, this.sharedIndex);
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
  // A crawl asks every origin's file with the same User-Agent string: read it once.
  if (userAgent === lastAgent) return lastKey;
  const token = productToken(userAgent);
  lastKey = isValidProductToken(token) ? token.toLowerCase() : '';
  lastAgent = userAgent;
  return lastKey;
}
let lastAgent: string | undefined;
let lastKey = '';

const NO_PAIRS: readonly number[] = [];

/** The user-agent lines naming the crawler in the groups of `pairs` (see makePolicy). */
function groupRef(model: Model, pairs: readonly number[]): GroupRef {
  const userAgents: string[] = [];
  const lines: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) {
    const g = model.groups[pairs[k]!]!;
    userAgents.push(g.agentValues[pairs[k + 1]!]!);
    lines.push(g.agentLines[pairs[k + 1]!]!);
  }
  return Object.freeze({ userAgents, lines });
}

function ruleRef(model: Model, i: number): RuleRef {
  const l = model.rules[3 * i + 2]!;
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
