// `robots-gate check URL... --user-agent UA`: may this crawler fetch these URLs?
import { Command } from 'commander';
import { productToken } from '../parser/index.js';
import { parseHttpUrl } from '../fetcher/url.js';
import { printable } from './lint.js';
import { FetchingSource, readRobotsFile } from './robots-source.js';
import { collect } from './repeatable.js';

/** Exit codes, as `--help` documents them. */
export const CHECK_EXIT = { allAllowed: 0, someDisallowed: 1, usage: 2, unreadable: 3 } as const;

interface CheckCliOptions {
  userAgent: string;
  robotsFile?: string;
  json?: boolean;
  resolve: string[];
  timeout: string;
}

export function checkCommand(): Command {
  return new Command('check')
    .description("the decision for each URL, from its origin's robots.txt (or from one FILE for all)")
    .argument('<url...>', 'URLs to check')
    .requiredOption('--user-agent <ua>', 'the crawler\'s User-Agent; rules match its product token')
    .option('--robots-file <file>', 'decide every URL by this robots.txt instead of fetching')
    .option('--json', 'one JSON object a line on stdout')
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention); repeatable', collect, [])
    .option('--timeout <ms>', 'whole robots.txt fetch, in ms', '10000')
    .addHelpText(
      'after',
      `
Exit codes:
  0  every URL is allowed
  1  at least one URL is disallowed (robots.txt rule, or robots.txt unreachable)
  2  bad usage, or a URL that is not an http(s) URL
  3  --robots-file cannot be read`,
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
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    err(`--timeout must be a whole number of ms >= 1, got ${JSON.stringify(opts.timeout)}`);
    return CHECK_EXIT.usage;
  }
  if (opts.robotsFile) {
    let robots;
    try {
      ({ robots } = await readRobotsFile(opts.robotsFile));
    } catch (e) {
      err(`cannot read --robots-file ${opts.robotsFile}: ${(e as Error).message}`);
      return CHECK_EXIT.unreadable;
    }
    let token: string;
    try {
      token = productToken(opts.userAgent);
    } catch (e) {
      err((e as Error).message);
      return CHECK_EXIT.usage;
    }
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
      if (opts.json) out(JSON.stringify({ url: u, allowed: r.allowed, reason, rule: r.rule, group: r.group, robotsFile: opts.robotsFile }));
      else out(line(u, r.allowed, reason, r.rule));
    }
  } else {
    let source: FetchingSource;
    try {
      source = new FetchingSource(opts.userAgent, opts.resolve, timeoutMs);
    } catch (e) {
      err((e as Error).message);
      return CHECK_EXIT.usage;
    }
    try {
      for (const u of urls) {
        let d;
        try {
          d = await source.check(u);
        } catch (e) {
          bad = true;
          if (opts.json) out(JSON.stringify({ url: u, error: (e as Error).message }));
          else err(printable((e as Error).message));
          continue;
        }
        if (!d.allowed) disallowed = true;
        if (opts.json) out(JSON.stringify(d));
        else out(line(d.url, d.allowed, d.reason, d.rule, `${d.policy.robotsUrl} ${d.policy.status}`));
      }
    } finally {
      await source.close();
    }
  }
  if (bad) return CHECK_EXIT.usage;
  return disallowed ? CHECK_EXIT.someDisallowed : CHECK_EXIT.allAllowed;
}

function line(url: string, allowed: boolean, reason: string, rule: { type: string; pattern: string; line: number } | null, source?: string): string {
  const verdict = allowed ? 'allowed   ' : 'disallowed';
  const why = rule ? `${rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern} (line ${rule.line})` : reason;
  // The pattern comes from a robots.txt that may be hostile: no control character reaches the terminal.
  return printable(`${verdict}  ${url}  ${why}${source ? `  [${source}]` : ''}`);
}
