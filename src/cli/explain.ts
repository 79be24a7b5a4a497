// `robots-gate explain URL --user-agent UA`: the robots.txt with the group that applied and the
// deciding line marked, and the reason in one sentence.
import { Command } from 'commander';
import { parseHttpUrl } from '../fetcher/url.js';
import type { Decision } from '../gate/types.js';
import { parseRobotsTxt, productToken } from '../parser/index.js';
import type { MatchResult, RobotsTxt } from '../parser/types.js';
import { FetchingSource, readRobotsFile } from './robots-source.js';

/** Exit codes, as `--help` documents them. */
export const EXPLAIN_EXIT = { allowed: 0, disallowed: 1, usage: 2, unreadable: 3 } as const;

interface ExplainCliOptions {
  userAgent: string;
  robotsFile?: string;
  resolve: string[];
  timeout: string;
  context: string;
}

const collect = (v: string, acc: string[]) => [...acc, v];

export function explainCommand(): Command {
  return new Command('explain')
    .description('show the robots.txt with the group that applied and the deciding line marked, and why, in one sentence')
    .argument('<url>', 'the URL to explain')
    .requiredOption('--user-agent <ua>', "the crawler's User-Agent; rules match its product token")
    .option('--robots-file <file>', "explain against this robots.txt instead of fetching the URL's own")
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention); repeatable', collect, [])
    .option('--timeout <ms>', 'whole robots.txt fetch, in ms', '10000')
    .option('--context <n>', 'in a long file, lines shown around the marked ones', '2')
    .addHelpText(
      'after',
      `
Marks: '>' the deciding rule, '|' the rest of the group that applied.

Exit codes:
  0  allowed
  1  disallowed
  2  bad usage, or not an http(s) URL
  3  --robots-file cannot be read`,
    )
    .action(async (url: string, opts: ExplainCliOptions) => {
      process.exitCode = await runExplain(url, opts);
    });
}

async function runExplain(rawUrl: string, opts: ExplainCliOptions): Promise<number> {
  const err = (s: string) => process.stderr.write(`robots-gate explain: ${s}\n`);
  let url: URL;
  let token: string;
  try {
    url = parseHttpUrl(rawUrl);
    token = productToken(opts.userAgent);
  } catch (e) {
    err((e as Error).message);
    return EXPLAIN_EXIT.usage;
  }
  const context = Math.max(0, Number(opts.context) || 0);
  if (opts.robotsFile) {
    let robots: RobotsTxt;
    let text: Uint8Array;
    try {
      ({ robots, text } = await readRobotsFile(opts.robotsFile));
    } catch (e) {
      err(`cannot read --robots-file ${opts.robotsFile}: ${(e as Error).message}`);
      return EXPLAIN_EXIT.unreadable;
    }
    const m = robots.check(url, token);
    process.stdout.write(render(Buffer.from(text).toString('utf8'), robots, m, context));
    process.stdout.write(`\n${sentence(url, token, m)}\n`);
    return m.allowed ? EXPLAIN_EXIT.allowed : EXPLAIN_EXIT.disallowed;
  }
  let source: FetchingSource;
  try {
    source = new FetchingSource(opts.userAgent, opts.resolve, Number(opts.timeout) || 10_000);
  } catch (e) {
    err((e as Error).message);
    return EXPLAIN_EXIT.usage;
  }
  try {
    const d = await source.check(url.href);
    const body = source.record(d.origin)?.body;
    process.stdout.write(`# ${d.policy.robotsUrl} (status ${d.policy.status}${d.policy.sha256 ? `, sha256 ${d.policy.sha256.slice(0, 16)}…` : ''}, fetched ${d.policy.fetchedAt})\n`);
    if (body !== undefined && (d.reason === 'allowed-by-rule' || d.reason === 'disallowed-by-rule' || d.reason === 'no-matching-rule' || d.reason === 'overridden')) {
      const robots = parseRobotsTxt(body, { url: d.policy.finalUrl });
      const m = robots.check(url, token);
      process.stdout.write(render(body, robots, m, context));
      process.stdout.write(`\n${sentence(url, token, m, d)}\n`);
    } else {
      process.stdout.write(`\n${sentence(url, token, null, d)}\n`);
    }
    return d.allowed ? EXPLAIN_EXIT.allowed : EXPLAIN_EXIT.disallowed;
  } catch (e) {
    err((e as Error).message);
    return EXPLAIN_EXIT.usage;
  } finally {
    await source.close();
  }
}

/** The file with line numbers, the applying group marked `|` and the deciding rule `>`. Long
 *  files show only the marked lines with `context` lines around them. */
function render(text: string, robots: RobotsTxt, m: MatchResult, context: number): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const groupLines = new Set<number>();
  if (m.group) {
    const starts = new Set(m.group.lines);
    for (const g of robots.groups) {
      if (!g.userAgents.some((ua) => starts.has(ua.line))) continue;
      for (const ua of g.userAgents) groupLines.add(ua.line);
      for (const r of g.rules) groupLines.add(r.line);
      if (g.crawlDelay) groupLines.add(g.crawlDelay.line);
    }
  }
  const decisive = m.rule?.line;
  const width = String(lines.length).length;
  const show = new Set<number>();
  if (lines.length <= 60) for (let i = 1; i <= lines.length; i++) show.add(i);
  else
    for (const n of [...groupLines, ...(decisive ? [decisive] : [])])
      for (let i = Math.max(1, n - context); i <= Math.min(lines.length, n + context); i++) show.add(i);
  const out: string[] = [];
  let prev = 0;
  for (let n = 1; n <= lines.length; n++) {
    if (!show.has(n)) continue;
    if (prev && n > prev + 1) out.push(`${' '.repeat(width)}   …`);
    const mark = n === decisive ? '>' : groupLines.has(n) ? '|' : ' ';
    out.push(`${mark} ${String(n).padStart(width)}  ${lines[n - 1]}`);
    prev = n;
  }
  if (show.size === 0) out.push('(no group applies to this crawler: nothing to mark)');
  return out.join('\n') + '\n';
}

function sentence(url: URL, token: string, m: MatchResult | null, d?: Decision): string {
  const target = url.pathname + url.search;
  if (d && !m) {
    switch (d.reason) {
      case 'robots-txt':
        return `Allowed: ${target} is robots.txt itself, which is always allowed (RFC 9309 §2.2.2).`;
      case 'unavailable':
        return `Allowed: ${d.policy.robotsUrl} answered ${d.policy.status}, so there are no restrictions (RFC 9309 §2.3.1.3).`;
      case 'too-many-redirects':
        return `Allowed: ${d.policy.robotsUrl} redirected too many times, which counts as unavailable (RFC 9309 §2.3.1.2).`;
      case 'unreachable':
        return `Disallowed: ${d.policy.robotsUrl} could not be fetched (${d.policy.status}), so everything is disallowed until it can be (RFC 9309 §2.3.1.4).`;
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
  return r.allowed
    ? `Allowed: ${written} is the longest rule in ${group} matching ${target} (RFC 9309 §2.2.2; allow wins a tie).`
    : `Disallowed: ${written} is the longest rule in ${group} matching ${target} (RFC 9309 §2.2.2).${over}`;
}
