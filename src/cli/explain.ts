// `robots-gate explain URL --user-agent UA`: the robots.txt with the group that applied and the
// deciding line marked, and the reason in one sentence.
import { Command } from 'commander';
import { parseHttpUrl } from '../fetcher/url.js';
import type { Decision } from '../gate/types.js';
import { decodeRobotsText, parseRobotsTxt } from '../parser/index.js';
import { compilePattern } from '../parser/pattern.js';
import type { MatchResult, RobotsTxt } from '../parser/types.js';
import { clipLine, printable } from './lint.js';
import { count } from './plural.js';
import { FetchingSource, htmlWarning, readRobotsFile, robotsWhere } from './robots-source.js';
import { collect } from './repeatable.js';
import { cliIdentity, PRODUCT_TOKEN_HELP, tokenPhrase, tokenReport, tokenWarnings, usedToken, type TokenReport } from './identity.js';
import { PURPOSES, signalsFromRobots, usageVerdict, type UsageVerdict } from '../usage/index.js';

/** Exit codes, as `--help` documents them. */
export const EXPLAIN_EXIT = { allowed: 0, disallowed: 1, usage: 2, unreadable: 3 } as const;

/** Lines past this many characters are cut, as lint cuts them: a binary file or a minified one
 *  has lines of many kilobytes that explain nothing. */
const MAX_SHOWN_CHARS = 200;

/** Files up to this many lines are shown whole; longer ones only around what decided. */
const SHOWN_WHOLE_LINES = 60;

interface ExplainCliOptions {
  userAgent: string;
  productToken: string[];
  robotsFile?: string;
  resolve: string[];
  timeout: string;
  robotsTimeout?: string;
  context: string;
  json?: boolean;
}

/** `--json`: the whole explanation as one object on stdout. */
export interface ExplainJson extends TokenReport {
  readonly url: string;
  readonly userAgent: string;
  /** Set when the file names none of the crawler's tokens but another product of its User-Agent. */
  readonly warnings?: readonly string[];
  readonly allowed: boolean;
  /** A gate DecisionReason (`allowed-by-rule`, `disallowed-by-rule`, `no-matching-rule`,
   *  `unavailable`, `unreachable`, …). */
  readonly reason: string;
  /** The group that applied: its user-agent values and their lines; null when none applies or
   *  the file was not used (unavailable, unreachable). */
  readonly group: { readonly userAgents: readonly string[]; readonly lines: readonly number[] } | null;
  /** The deciding rule; null when no rule matched. */
  readonly rule: { readonly type: 'allow' | 'disallow'; readonly pattern: string; readonly line: number } | null;
  /** Where the rules came from: the file given, or the fetched robots.txt with its stamp. */
  readonly source:
    | { readonly robotsFile: string }
    | {
        readonly robotsUrl: string;
        /** Where the body finally came from, after redirects (robotsUrl when none). */
        readonly finalUrl: string;
        readonly status: number | string;
        readonly sha256: string | null;
        readonly fetchedAt: string;
      };
  /** The reason in one sentence, as the text output ends. */
  readonly sentence: string;
}

export function explainCommand(): Command {
  return new Command('explain')
    .description('show the robots.txt with the group that applied and the deciding line marked, and why, in one sentence')
    .argument('<url>', 'the URL to explain')
    .requiredOption('--user-agent <ua>', "the crawler's User-Agent; rules match its product token")
    .option('--product-token <name>', PRODUCT_TOKEN_HELP, collect, [])
    .option('--robots-file <file>', "explain against this robots.txt instead of fetching the URL's own")
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention); repeatable', collect, [])
    .option('--timeout <ms>', 'whole robots.txt fetch, in ms', '10000')
    .option('--robots-timeout <ms>', "the same as --timeout, by the name crawl gives it (crawl's --timeout is a page's)")
    .option('--context <n>', `in a file of more than ${SHOWN_WHOLE_LINES} lines, lines shown around the deciding rule (the group's user-agent lines are always shown)`, '2')
    .option('--json', 'one JSON object on stdout: the decision, the group, the rule and the sentence')
    .addHelpText(
      'after',
      `
Marks: '>' the deciding rule, '|' the rest of the group that applied. Lines past ${MAX_SHOWN_CHARS} characters are cut.

Exit codes:
  0  allowed
  1  disallowed
  2  bad usage (an empty --user-agent, one that names no crawler, a --product-token it does not
     carry), or not an http(s) URL
  3  --robots-file cannot be read
The output says which product token was matched and where it came from, and warns when the file
names none of your tokens but another name in --user-agent.
With --json, a failure is also one object on stdout: {"url": …, "error": …}.`,
    )
    .action(async (url: string, opts: ExplainCliOptions) => {
      process.exitCode = await runExplain(url, opts);
    });
}

async function runExplain(rawUrl: string, opts: ExplainCliOptions): Promise<number> {
  const fail = (s: string, code: number) => {
    process.stderr.write(`robots-gate explain: ${printable(s)}\n`);
    if (opts.json) process.stdout.write(JSON.stringify({ url: rawUrl, error: s }) + '\n');
    return code;
  };
  let url: URL;
  let identity;
  try {
    url = parseHttpUrl(rawUrl);
    identity = cliIdentity(opts.userAgent, opts.productToken);
  } catch (e) {
    return fail((e as Error).message, EXPLAIN_EXIT.usage);
  }
  const context = Number(opts.context);
  const [timeoutName, timeoutText] = opts.robotsTimeout !== undefined ? ['--robots-timeout', opts.robotsTimeout] : ['--timeout', opts.timeout];
  const timeoutMs = Number(timeoutText);
  if (!Number.isInteger(context) || context < 0) return fail(`--context must be a whole number >= 0, got ${JSON.stringify(opts.context)}`, EXPLAIN_EXIT.usage);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) return fail(`${timeoutName} must be a whole number of ms >= 1, got ${JSON.stringify(timeoutText)}`, EXPLAIN_EXIT.usage);
  type Rest = Omit<ExplainJson, 'url' | 'userAgent' | keyof TokenReport | 'warnings'>;
  // The text output: the file, then the token matched (and any warning), then the sentence.
  // `delay`: the Crawl-delay of the group that applies (s): the pace is part of the answer.
  const emit = (file: string, json: Rest, token: string, warnings: string[] = [], usage?: UsageVerdict, delay?: number) => {
    const paced = delay === undefined ? [] : [`Crawl-delay: ${delay} s between two requests to this host (the group's; a longer floor of the crawler's own still applies)`];
    const said = [`Product token: ${tokenPhrase(identity, token)}`, ...paced, ...warnings.map((w) => `Warning: ${w}`), ...(usage ? [usagePhrase(usage)] : [])]
      .map((l) => printable(l) + '\n')
      .join('');
    process.stdout.write(
      opts.json
        ? JSON.stringify({ url: url.href, userAgent: opts.userAgent, ...tokenReport(identity, token), ...(warnings.length ? { warnings } : {}), ...json, ...(usage ? { usage } : {}) }) + '\n'
        : `${file}\n${said}${printable(json.sentence)}\n`,
    );
  };

  if (opts.robotsFile) {
    let robots: RobotsTxt;
    let text: Uint8Array;
    try {
      ({ robots, text } = await readRobotsFile(opts.robotsFile));
    } catch (e) {
      return fail(`cannot read --robots-file ${opts.robotsFile}: ${(e as Error).message}`, EXPLAIN_EXIT.unreadable);
    }
    const token = usedToken(identity, robots);
    const m = robots.check(url, token);
    const s = sentence(url, token, m, undefined, robots);
    emit(render(decodeRobotsText(text), robots, m, context), {
      ...verdict(m),
      source: { robotsFile: opts.robotsFile },
      sentence: s,
    }, token, tokenWarnings(robots, identity, `--robots-file ${opts.robotsFile}`), robotsUsage(robots, url, token, m.allowed), robots.crawlDelay(token));
    return m.allowed ? EXPLAIN_EXIT.allowed : EXPLAIN_EXIT.disallowed;
  }
  let source: FetchingSource;
  try {
    source = new FetchingSource(opts.userAgent, opts.resolve, timeoutMs, identity.tokens);
  } catch (e) {
    return fail((e as Error).message, EXPLAIN_EXIT.usage);
  }
  try {
    const d = await source.check(url.href);
    const body = source.record(d.origin)?.body;
    const p = d.policy;
    const head = `# ${robotsWhere(p)} (status ${p.status}${p.sha256 ? `, sha256 ${p.sha256.slice(0, 16)}…` : ''}, fetched ${p.fetchedAt})\n`;
    const src = { robotsUrl: p.robotsUrl, finalUrl: p.finalUrl, status: p.status, sha256: p.sha256, fetchedAt: p.fetchedAt };
    if (body !== undefined && (d.reason === 'allowed-by-rule' || d.reason === 'disallowed-by-rule' || d.reason === 'no-matching-rule' || d.reason === 'overridden')) {
      const robots = parseRobotsTxt(body, { url: p.finalUrl });
      const m = robots.check(url, d.productToken);
      const s = sentence(url, d.productToken, m, d, robots);
      emit(`${head}${render(body, robots, m, context)}`, { ...verdict(m), allowed: d.allowed, reason: d.reason, source: src, sentence: s }, d.productToken, [...htmlWarning(p), ...tokenWarnings(robots, identity, p.robotsUrl)], robotsUsage(robots, url, d.productToken, m.allowed, p.robotsUrl), robots.crawlDelay(d.productToken));
    } else {
      const s = sentence(url, d.productToken, null, d, undefined, source.record(d.origin)?.redirectLoop);
      emit(head, { allowed: d.allowed, reason: d.reason, group: null, rule: null, source: src, sentence: s }, d.productToken);
    }
    return d.allowed ? EXPLAIN_EXIT.allowed : EXPLAIN_EXIT.disallowed;
  } catch (e) {
    return fail((e as Error).message, EXPLAIN_EXIT.usage);
  } finally {
    await source.close();
  }
}

/** What the file's usage lines say of `url`, before any fetch; undefined when it has none or
 *  access refuses the URL (usage lines cover only what may be crawled, aipref attach draft). */
function robotsUsage(robots: RobotsTxt, url: URL, token: string, allowed: boolean, robotsUrl?: string): UsageVerdict | undefined {
  if (!allowed || robots.usageLines.length === 0) return undefined;
  return usageVerdict(signalsFromRobots(robots.usage(url, token), robotsUrl));
}

/** `Usage (beside access): ai-train reserved by line 5 (content-signal "…"); search allowed …`. */
function usagePhrase(v: UsageVerdict): string {
  const parts = PURPOSES.map((p) => {
    const { verdict, signals } = v.purposes[p];
    if (verdict === 'unknown') return `${p} unknown`;
    return `${p} ${verdict} by ${signals.map((x) => `line ${x.line} (${x.kind} "${x.value}")`).join(', ')}`;
  });
  return `Usage (beside access, any reservation wins): ${parts.join('; ')}`;
}

/** The match as the JSON output gives it. */
function verdict(m: MatchResult): Pick<ExplainJson, 'allowed' | 'reason' | 'group' | 'rule'> {
  return {
    allowed: m.allowed,
    reason: m.rule ? (m.allowed ? 'allowed-by-rule' : 'disallowed-by-rule') : 'no-matching-rule',
    group: m.group ? { userAgents: [...m.group.userAgents], lines: [...m.group.lines] } : null,
    rule: m.rule ? { type: m.rule.type, pattern: m.rule.pattern, line: m.rule.line } : null,
  };
}

/** The file with line numbers, the applying group marked `|` and the deciding rule `>`. A long
 *  file shows the group's header (its user-agent lines) and the deciding rule, each with `context`
 *  lines around it: a group of thousands of rules would otherwise bury the one line that decided. */
function render(text: string, robots: RobotsTxt, m: MatchResult, context: number): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const groupLines = new Set<number>();
  const header: number[] = [];
  if (m.group) {
    const starts = new Set(m.group.lines);
    const applying: boolean[] = [];
    for (const g of robots.groups) {
      applying.push(g.userAgents.some((ua) => starts.has(ua.line)));
      if (!applying.at(-1)) continue;
      for (const ua of g.userAgents) {
        groupLines.add(ua.line);
        header.push(ua.line);
      }
      for (const r of g.rules) groupLines.add(r.line);
      if (g.crawlDelay) groupLines.add(g.crawlDelay.line);
    }
    // Usage lines in a group (Content-Usage, Content-Signal) belong to the group last begun above
    // them, as the parser reads them; the Usage sentence cites them as the group's.
    const begins = robots.groups.map((g) => g.userAgents[0]!.line);
    for (const u of robots.usageLines) {
      if (u.scope !== 'group') continue;
      let i = begins.length - 1;
      while (i >= 0 && begins[i]! > u.line) i--;
      if (i >= 0 && applying[i]) groupLines.add(u.line);
    }
  }
  const decisive = m.rule?.line;
  const width = String(lines.length).length;
  const show = new Set<number>();
  if (lines.length <= SHOWN_WHOLE_LINES) for (let i = 1; i <= lines.length; i++) show.add(i);
  else {
    for (const n of header) show.add(n);
    if (decisive) for (let i = Math.max(1, decisive - context); i <= Math.min(lines.length, decisive + context); i++) show.add(i);
  }
  const out: string[] = [];
  let prev = 0;
  const gap = (from: number, to: number) => {
    let inGroup = 0;
    for (let i = from; i <= to; i++) if (groupLines.has(i)) inGroup++;
    const n = to - from + 1;
    out.push(`${' '.repeat(width + 2)} … ${count(n, 'line')} not shown${inGroup ? ` (${inGroup} of the group)` : ''}`);
  };
  for (let n = 1; n <= lines.length; n++) {
    if (!show.has(n)) continue;
    if (n > prev + 1) gap(prev + 1, n - 1);
    const mark = n === decisive ? '>' : groupLines.has(n) ? '|' : ' ';
    // The file may be hostile: its control characters are shown, not sent to the terminal.
    out.push(`${mark} ${String(n).padStart(width)}  ${printable(clipLine(lines[n - 1]!, MAX_SHOWN_CHARS))}`);
    prev = n;
  }
  if (show.size === 0) out.push('(no group applies to this crawler: nothing to mark)');
  else if (prev < lines.length) gap(prev + 1, lines.length);
  return out.join('\n') + '\n';
}

/** Did a disallow rule as long as the deciding allow rule also match? Only then did "allow wins a
 *  tie" decide anything; the match result names the winner alone, so the group's disallow rules of
 *  equal priority are each matched on their own. */
function tiedDisallow(url: URL, robots: RobotsTxt, m: MatchResult): boolean {
  if (!m.group || !m.rule || m.rule.type !== 'allow') return false;
  const priority = compilePattern(m.rule.pattern).priority;
  const starts = new Set(m.group.lines);
  for (const g of robots.groups) {
    if (!g.userAgents.some((ua) => starts.has(ua.line))) continue;
    for (const r of g.rules) {
      if (r.type !== 'disallow' || compilePattern(r.pattern).priority !== priority) continue;
      if (!parseRobotsTxt(`User-agent: *\nDisallow: ${r.pattern}\n`).check(url, 'robots-gate').allowed) return true;
    }
  }
  return false;
}

/** @param loop for a too-many-redirects decision from a loop: the URL the last redirect pointed back to. */
function sentence(url: URL, token: string, m: MatchResult | null, d?: Decision, robots?: RobotsTxt, loop?: string): string {
  const target = url.pathname + url.search;
  if (d && !m) {
    switch (d.reason) {
      case 'robots-txt':
        return `Allowed: ${target} is robots.txt itself, which is always allowed (RFC 9309 §2.2.2).`;
      case 'unavailable':
        return `Allowed: ${robotsWhere(d.policy)} answered ${d.policy.status}, so there are no restrictions (RFC 9309 §2.3.1.3).`;
      case 'too-many-redirects':
        // A loop is a misconfiguration to fix on the site; "too many" would send the reader counting hops.
        if (loop !== undefined && loop === d.policy.finalUrl) {
          return `Allowed: ${robotsWhere(d.policy)} redirects to itself, a redirect loop, which counts as unavailable (RFC 9309 §2.3.1.2).`;
        }
        if (loop !== undefined) {
          return `Allowed: ${robotsWhere(d.policy)} redirects back to ${loop}, a redirect loop, which counts as unavailable (RFC 9309 §2.3.1.2).`;
        }
        return `Allowed: ${d.policy.robotsUrl} redirected too many times, which counts as unavailable (RFC 9309 §2.3.1.2).`;
      case 'unreachable':
        return `Disallowed: ${robotsWhere(d.policy)} could not be fetched (${d.policy.status}), so everything is disallowed until it can be (RFC 9309 §2.3.1.4).`;
      default:
        return `${d.allowed ? 'Allowed' : 'Disallowed'}: ${d.reason}.`;
    }
  }
  const r = m!;
  const group = r.group ? `the group for ${r.group.userAgents.map((u) => `"${u}"`).join(', ')} (line ${r.group.lines.join(', ')})` : '';
  const over = d?.overridden ? ' It is fetched anyway under --override.' : '';
  if (!r.group) return `Allowed: no group names "${token}" and there is no "*" group, so no rule applies (RFC 9309 §2.2.1).`;
  if (!r.rule) return `Allowed: no rule in ${group} matches ${target} (RFC 9309 §2.2.2).`;
  const written = `"${r.rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${r.rule.pattern}" on line ${r.rule.line}`;
  const tie = robots && tiedDisallow(url, robots, r) ? '; allow wins a tie' : '';
  return r.allowed
    ? `Allowed: ${written} is the longest rule in ${group} matching ${target} (RFC 9309 §2.2.2${tie}).`
    : `Disallowed: ${written} is the longest rule in ${group} matching ${target} (RFC 9309 §2.2.2).${over}`;
}
