// `robots-gate check URL... --user-agent UA`: may this crawler fetch these URLs?
import { Command } from 'commander';
import { parseHttpUrl } from '../fetcher/url.js';
import type { Decision } from '../gate/types.js';
import { parseRobotsTxt } from '../parser/index.js';
import { cliIdentity, PRODUCT_TOKEN_HELP, tokenReport, tokenWarnings, usedToken } from './identity.js';
import { printable } from './lint.js';
import { FetchingSource, htmlWarning, readRobotsFile, robotsWhere } from './robots-source.js';
import { collect } from './repeatable.js';

/** Exit codes, as `--help` documents them. */
export const CHECK_EXIT = { allAllowed: 0, someDisallowed: 1, usage: 2, unreadable: 3 } as const;

interface CheckCliOptions {
  userAgent: string;
  productToken: string[];
  robotsFile?: string;
  json?: boolean;
  resolve: string[];
  timeout: string;
  robotsTimeout?: string;
}

export function checkCommand(): Command {
  return new Command('check')
    .description("the decision for each URL, from its origin's robots.txt (or from one FILE for all)")
    .argument('<url...>', 'URLs to check')
    .requiredOption('--user-agent <ua>', 'the crawler\'s User-Agent; rules match its product token')
    .option('--product-token <name>', PRODUCT_TOKEN_HELP, collect, [])
    .option('--robots-file <file>', 'decide every URL by this robots.txt instead of fetching')
    .option('--json', 'one JSON object a line on stdout')
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention); repeatable', collect, [])
    .option('--timeout <ms>', 'whole robots.txt fetch, in ms', '10000')
    .option('--robots-timeout <ms>', "the same as --timeout, by the name crawl gives it (crawl's --timeout is a page's)")
    .addHelpText(
      'after',
      `
Exit codes:
  0  every URL is allowed
  1  at least one URL is disallowed (robots.txt rule, or robots.txt unreachable)
  2  bad usage (an empty --user-agent, one that names no crawler, a --product-token it does not
     carry), or a URL that is not an http(s) URL
  3  --robots-file cannot be read
With --json, each line also says the productToken used and where it came from; a file that names
none of your tokens but another name in --user-agent is warned about (stderr; "warnings" in JSON).`,
    )
    .action(async (urls: string[], opts: CheckCliOptions) => {
      process.exitCode = await runCheck(urls, opts);
    });
}

async function runCheck(urls: string[], opts: CheckCliOptions): Promise<number> {
  const out = (s: string) => process.stdout.write(s + '\n');
  const err = (s: string) => process.stderr.write(`robots-gate check: ${s}\n`);
  let disallowed = false;
  let bad = false;
  const [timeoutName, timeoutText] = opts.robotsTimeout !== undefined ? ['--robots-timeout', opts.robotsTimeout] : ['--timeout', opts.timeout];
  const timeoutMs = Number(timeoutText);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    err(`${timeoutName} must be a whole number of ms >= 1, got ${JSON.stringify(timeoutText)}`);
    return CHECK_EXIT.usage;
  }
  // The same identity checks with a local file as with a fetched one: the answer must not depend on
  // where the rules came from.
  let identity;
  try {
    identity = cliIdentity(opts.userAgent, opts.productToken);
  } catch (e) {
    err((e as Error).message);
    return CHECK_EXIT.usage;
  }
  const warn = (ws: string[]) => {
    if (!opts.json) for (const w of ws) err(`warning: ${printable(w)}`);
    return ws.length ? { warnings: ws } : {};
  };
  if (opts.robotsFile) {
    let robots;
    try {
      ({ robots } = await readRobotsFile(opts.robotsFile));
    } catch (e) {
      err(`cannot read --robots-file ${opts.robotsFile}: ${(e as Error).message}`);
      return CHECK_EXIT.unreadable;
    }
    const token = usedToken(identity, robots);
    const said = { ...tokenReport(identity, token), ...warn(tokenWarnings(robots, identity, `--robots-file ${opts.robotsFile}`)) };
    for (const u of urls) {
      let r;
      try {
        r = robots.check(parseHttpUrl(u), token);
      } catch (e) {
        bad = true;
        if (opts.json) out(JSON.stringify({ url: u, error: (e as Error).message }));
        else err(printable((e as Error).message));
        continue;
      }
      if (!r.allowed) disallowed = true;
      const reason = r.rule ? (r.allowed ? 'allowed-by-rule' : 'disallowed-by-rule') : 'no-matching-rule';
      if (opts.json) out(JSON.stringify({ url: u, allowed: r.allowed, reason, rule: r.rule, group: r.group, robotsFile: opts.robotsFile, ...said }));
      else out(line(u, r.allowed, reason, r.rule, delayPhrase(robots.crawlDelay(token))));
    }
  } else {
    let source: FetchingSource;
    try {
      source = new FetchingSource(opts.userAgent, opts.resolve, timeoutMs, identity.tokens);
    } catch (e) {
      err((e as Error).message);
      return CHECK_EXIT.usage;
    }
    // Warnings once per origin, from the body the gate fetched.
    const warned = new Map<string, { warnings?: string[] }>();
    const warningsFor = (origin: string) => {
      let w = warned.get(origin);
      if (w === undefined) {
        const r = source.record(origin);
        w = r?.kind === 'parsed' && r.body !== undefined ? warn([...htmlWarning(r), ...tokenWarnings(parseRobotsTxt(r.body), identity, r.robotsUrl || `${origin}/robots.txt`)]) : {};
        warned.set(origin, w);
      }
      return w;
    };
    try {
      // Origins are fetched concurrently (each URL of one origin joins its origin's one fetch), and
      // the answers are printed in input order as soon as every earlier one is in.
      const outcomes = checkByOrigin(urls, (u) => source.check(u));
      for (let i = 0; i < urls.length; i++) {
        const o = await outcomes[i]!;
        if ('error' in o) {
          bad = true;
          if (opts.json) out(JSON.stringify({ url: urls[i], error: o.error.message }));
          else err(printable(o.error.message));
          continue;
        }
        const d = o.decision;
        if (!d.allowed) disallowed = true;
        const said = { ...tokenReport(identity, d.productToken), ...warningsFor(d.origin) };
        if (opts.json) out(JSON.stringify({ ...d, ...said }));
        else out(line(d.url, d.allowed, d.reason, d.rule, [`${robotsWhere(d.policy)} ${d.policy.status}`, delayPhrase(d.crawlDelaySeconds)].filter(Boolean).join(', ')));
      }
    } finally {
      await source.close();
    }
  }
  if (bad) return CHECK_EXIT.usage;
  return disallowed ? CHECK_EXIT.someDisallowed : CHECK_EXIT.allAllowed;
}

/** Origins whose robots.txt `check` fetches at once: enough that a list of slow or hanging hosts
 *  costs about one --timeout, few enough that a long list does not open hundreds of sockets. */
export const CHECK_ORIGINS_AT_ONCE = 16;

type Outcome = { decision: Decision } | { error: Error };

/**
 * Run `decide` for every URL, at most CHECK_ORIGINS_AT_ONCE origins at a time; the URLs of one
 * origin one after another (the first loads its robots.txt, the rest answer from the cache).
 * @returns one promise per URL, in input order; none rejects (a thrown error is the outcome).
 */
function checkByOrigin(urls: readonly string[], decide: (url: string) => Promise<Decision>): Promise<Outcome>[] {
  const groups = new Map<string, number[]>();
  urls.forEach((u, i) => {
    let key: string;
    try {
      key = parseHttpUrl(u).origin;
    } catch {
      key = `#${i}`; // not a URL: decide() gives the error, on its own
    }
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  const settle: ((o: Outcome) => void)[] = [];
  const outcomes = urls.map((_, i) => new Promise<Outcome>((resolve) => (settle[i] = resolve)));
  const queue = [...groups.values()];
  const worker = async () => {
    for (let g = queue.shift(); g !== undefined; g = queue.shift()) {
      for (const i of g) {
        try {
          settle[i]!({ decision: await decide(urls[i]!) });
        } catch (e) {
          settle[i]!({ error: e instanceof Error ? e : new Error(String(e)) });
        }
      }
    }
  };
  const workers = Math.min(CHECK_ORIGINS_AT_ONCE, queue.length);
  for (let w = 0; w < workers; w++) void worker();
  return outcomes;
}

/** The Crawl-delay that applies, as the text line shows it beside the source (`Crawl-delay 5 s`):
 *  the pace the crawler must keep is part of the answer, not only in --json. */
function delayPhrase(seconds: number | undefined): string | undefined {
  return seconds === undefined ? undefined : `Crawl-delay ${seconds} s`;
}

function line(url: string, allowed: boolean, reason: string, rule: { type: string; pattern: string; line: number } | null, source?: string): string {
  const verdict = allowed ? 'allowed   ' : 'disallowed';
  const why = rule ? `${rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern} (line ${rule.line})` : reason;
  // The pattern comes from a robots.txt that may be hostile: no control character reaches the terminal.
  return printable(`${verdict}  ${url}  ${why}${source ? `  [${source}]` : ''}`);
}
