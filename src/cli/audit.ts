// `robots-gate audit DIR`: read a crawl's audit (every audit*.sqlite in DIR as one): runs, hosts,
// a host's timeline, blocked URLs with their rule, policy changes, and --verify, which re-checks
// every stamp against the stored policy text.
import { Command } from 'commander';
import { openAudit, type AuditReader } from '../audit/reader.js';
import { parseRobotsTxt, productToken } from '../parser/index.js';
import { tokenInForce } from '../gate/identity.js';
import { hostOnly } from '../gate/politeness.js';
import { originOf } from '../fetcher/url.js';
import { textHashesTo } from '../gate/policy-record.js';
import type { RobotsTxt } from '../parser/types.js';
import { printSitemaps } from './audit-sitemaps.js';
import { exportJsonl, printUsage } from './audit-usage.js';
import { reasonWithCause } from '../report/format.js';
import { table } from './text-table.js';

/** Exit codes, as `--help` documents them. */
export const AUDIT_EXIT = { ok: 0, verifyFailed: 1, usage: 2, unreadable: 3, noSuchHost: 4 } as const;

interface AuditCliOptions {
  json?: boolean;
  host?: string;
  blocked?: boolean;
  changes?: boolean;
  verify?: boolean;
  usage?: boolean;
  sitemaps?: boolean;
  export?: string;
  limit: string;
}

export function auditCommand(): Command {
  return new Command('audit')
    .description("read a crawl's audit: runs and hosts; or one host's timeline, the blocked URLs, the policy changes; --verify re-checks every stamp")
    .argument('<dir>', "the crawl's --out DIR (every audit*.sqlite in it is read as one), or one .sqlite file")
    .option('--host <host>', "one host's timeline: attempts and policy changes in time order")
    .option('--blocked', 'blocked URLs with the deciding rule and the policy that had it')
    .option('--changes', 'robots.txt changes seen during the runs (old and new sha256, boundary time)')
    .option('--verify', 'check every attempt stamp: its policy text is stored, re-deciding blocked URLs from that text gives the same rule, and every URL sent (not under override) is allowed by it')
    .option('--usage', 'documents by usage verdict per purpose (search, ai-input, ai-train), with the signals that decided')
    .option('--sitemaps', "every sitemap read (what it gave, what was dropped, the cap that stopped it) and each host's lastmod reliability")
    .option('--export <format>', 'jsonl: one line per saved document with its URL, content sha256, access stamp and usage verdict')
    .option('--limit <n>', 'rows shown at most in lists', '50')
    .option('--json', 'one JSON object a line on stdout')
    .addHelpText(
      'after',
      `
Exit codes:
  0  read (and, with --verify, every stamp checks out)
  1  --verify found a stamp that does not check out
  2  bad usage
  3  DIR holds no readable audit
  4  --host names a host the audit has no row for (stderr names the hosts it may mean)`,
    )
    .action((dir: string, opts: AuditCliOptions) => {
      process.exitCode = runAudit(dir, opts);
    });
}

const out = (s: string) => process.stdout.write(s + '\n');


function noRows(host: string, audited: string[]): string {
  const want = host.toLowerCase();
  const near = audited.filter((h) => h !== '' && h.toLowerCase().includes(want));
  const shown = near.slice(0, 10).join(', ') + (near.length > 10 ? `, … (${near.length} in all)` : '');
  return `no rows for host ${JSON.stringify(host)}${near.length ? `; did you mean ${shown}?` : ''}`;
}

/** Row kinds whose final row settles a URL of the run (the others are reads beside it). */
const SETTLING = new Set(['page', 'redirect', 'navigation']);

function runAudit(dir: string, opts: AuditCliOptions): number {
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`robots-gate audit: --limit must be a whole number >= 1, got ${JSON.stringify(opts.limit)}\n`);
    return AUDIT_EXIT.usage;
  }
  let reader: AuditReader;
  try {
    reader = openAudit(dir);
  } catch (err) {
    process.stderr.write(`robots-gate audit: ${(err as Error).message}\n`);
    return AUDIT_EXIT.unreadable;
  }
  for (const note of reader.notes) process.stderr.write(`robots-gate audit: note: ${note}\n`);
  try {
    if (opts.verify) return verify(reader, opts);
    if (opts.export !== undefined) {
      if (opts.export !== 'jsonl') {
        process.stderr.write(`robots-gate audit: --export takes jsonl, got ${JSON.stringify(opts.export)}\n`);
        return AUDIT_EXIT.usage;
      }
      exportJsonl(reader);
      return AUDIT_EXIT.ok;
    }
    if (opts.sitemaps) {
      printSitemaps(reader, !!opts.json, limit);
      return AUDIT_EXIT.ok;
    }
    if (opts.usage) {
      printUsage(reader, !!opts.json, limit);
      return AUDIT_EXIT.ok;
    }
    if (opts.host) {
      const entries = reader.timeline(opts.host);
      // Hosts are keyed as URL.host, port included: "shop.test" finds nothing when the crawl went to
      // shop.test:18081, and an empty timeline alone does not say why. Not exit 0: a script
      // reading the timeline of a mistyped host must not take "no rows" for "nothing happened".
      if (entries.length === 0) {
        process.stderr.write(`robots-gate audit: ${noRows(opts.host, reader.hosts().map((h) => h.host))}\n`);
        return AUDIT_EXIT.noSuchHost;
      }
      if (opts.json) for (const e of entries) out(JSON.stringify(e));
      else {
        out(`timeline of ${opts.host} (${entries.length} entries)`);
        for (const e of entries.slice(0, limit)) {
          if (e.type === 'policy-change') out(`${e.at}  POLICY CHANGE  ${e.oldSha256?.slice(0, 12) ?? 'none'} -> ${e.newSha256?.slice(0, 12) ?? 'none'}`);
          else
            out(
              `${e.startedAt}  ${e.outcome.padEnd(10)} ${String(e.status ?? '-').padStart(3)}  ${e.url}${e.kind === 'page' ? '' : ` [${e.kind}]`}  ${reasonWithCause(e.reason, e.policyStatus)}` +
                `${e.ruleLine ? ` (line ${e.ruleLine}: ${e.rulePattern})` : ''}  policy ${e.policySha256?.slice(0, 12) ?? '-'}` +
                `${e.intervalMs !== null ? `  after ${e.intervalMs} ms (${e.waitReason})` : ''}` +
                // What failed, as the fetcher or the browser said it (net::ERR_…): the reason alone is a category.
                `${e.error ? `  error: ${e.error}` : ''}` +
                // Not the URL's last word: the summaries count URLs by their final row, so a 429 that
                // was retried and then fetched is no error there (a new user read these as errors).
                // A TDMRep or sitemap read settles no URL of the run: never final, nothing to say.
                `${e.final || !SETTLING.has(e.kind) ? '' : `  (attempt ${e.attempt}, not the URL's last)`}`,
            );
        }
      }
      return AUDIT_EXIT.ok;
    }
    if (opts.blocked) {
      const rows = reader.blocked();
      if (opts.json) for (const r of rows) out(JSON.stringify(r));
      else
        out(
          table([
            ['url', 'reason', 'line', 'rule', 'policy', 'at'],
            ...rows.slice(0, limit).map((r) => [r.url, reasonWithCause(r.reason, r.policyStatus), r.ruleLine, r.rulePattern, r.policySha256?.slice(0, 12) ?? null, r.startedAt]),
          ]),
        );
      return AUDIT_EXIT.ok;
    }
    if (opts.changes) {
      const rows = reader.policyChanges();
      if (opts.json) for (const r of rows) out(JSON.stringify(r));
      else if (rows.length === 0) out('no robots.txt changed during the runs');
      else out(table([['origin', 'old sha256', 'new sha256', 'at'], ...rows.map((r) => [r.origin, r.oldSha256, r.newSha256, r.at])]));
      return AUDIT_EXIT.ok;
    }
    const runs = reader.runs();
    const hosts = reader.hosts();
    if (opts.json) {
      for (const r of runs) out(JSON.stringify({ type: 'run', ...r }));
      for (const h of hosts) out(JSON.stringify({ type: 'host', ...h }));
      return AUDIT_EXIT.ok;
    }
    out(`audit of ${dir}: ${reader.files.join(', ')}`);
    out('');
    // A fleet's workers each record their own run id; the --run name they share is what the
    // user typed, so it is shown beside the ids when any run has one.
    const fleetName = (r: (typeof runs)[number]) => (typeof r.options.run === 'string' ? r.options.run : null);
    const fleet = runs.some((r) => fleetName(r) !== null);
    out(
      table([
        ['run', ...(fleet ? ['--run'] : []), 'worker', 'started', 'status', 'rows', 'URLs', 'fetched', 'blocked', 'skipped', 'error', 'resumes'],
        ...runs.map((r) => [
          r.runId,
          ...(fleet ? [fleetName(r)] : []),
          r.worker,
          r.startedAt,
          r.status,
          r.attempts,
          ...byUrl(r.settled),
          r.resumeOf,
        ]),
      ]),
    );
    out('');
    out(
      table([
        ['host', 'rows', 'URLs', 'fetched', 'blocked', 'skipped', 'error', 'policies', 'max interval'],
        ...hosts
          .slice(0, limit)
          .map((h) => [
            h.host || '(invalid input)',
            h.attempts,
            ...byUrl(h.settled),
            h.policyVersions,
            h.maxIntervalMs !== null ? `${h.maxIntervalMs} ms (${h.maxIntervalReason})` : null,
          ]),
      ]),
    );
    return AUDIT_EXIT.ok;
  } finally {
    reader.close();
  }
}

/** Whether two URLs share an origin (fetcher/url's originOf); null when either is no http(s) URL. */
function sameOrigin(a: string, b: string): boolean | null {
  try {
    return originOf(a) === originOf(b);
  } catch {
    return null;
  }
}

/** Whether `url`'s host is one `override` names, as the gate matches them (gate/politeness's
 *  hostOnly: case, port and IDN spelling aside). */
function underOverride(override: true | ReadonlySet<string> | null, url: string): boolean {
  if (override === true) return true;
  if (override === null) return false;
  try {
    return override.has(hostOnly(new URL(url).hostname));
  } catch {
    return false;
  }
}

/** The URLs columns of the runs and hosts tables: URLs, then fetched, blocked, skipped and error
 *  by how each URL settled, as the crawl summary and the report count them (`rows` beside them
 *  counts every request and retry: a 503 retried into a 200 is two rows, one URL fetched). */
function byUrl(settled: Partial<Record<string, number>>): number[] {
  const fetched = (settled.fetched ?? 0) + (settled.overridden ?? 0);
  const rest = [settled.blocked ?? 0, settled.skipped ?? 0, settled.error ?? 0];
  return [fetched + rest[0]! + rest[1]! + rest[2]!, fetched, ...rest];
}

/** Every stamped attempt's policy is stored; the stored text hashes to its key (the text's UTF-8, or
 *  for a file that was UTF-16 or invalid UTF-8 on the wire, the octets the text was decoded from); a
 *  blocked URL re-decided from that text is blocked again by the same line; and a URL sent is one
 *  its run could send: allowed by its stamped policy (the robots.txt of its own origin), or under an
 *  --override the run named, or without a stamp only where robots.txt was unavailable (4xx). A row
 *  appended by hand saying a disallowed URL was fetched is caught when it does not add up; verify
 *  checks that the audit is consistent, not who wrote it (no row is signed). */
function verify(reader: AuditReader, opts: AuditCliOptions): number {
  // Each run's tokens in match order (its --product-token values, else the token read from its
  // User-Agent) and the hosts it overrode (null: the run did not record them).
  const runs = new Map(
    reader.runs().map((r) => {
      const given = Array.isArray(r.options.productToken) ? (r.options.productToken as string[]) : [];
      const override = r.options.override === true ? true : Array.isArray(r.options.override) ? new Set((r.options.override as string[]).map(hostOnly)) : null;
      return [r.runId, { tokens: r.userAgent ? (given.length ? given : [productToken(r.userAgent)]) : null, override }] as const;
    }),
  );
  const parsed = new Map<string, RobotsTxt | null>();
  const hashOk = new Map<string, 'exact' | 'decoded' | false>();
  let checked = 0;
  let rows = 0;
  const problems: { url: string; problem: string }[] = [];
  for (const a of reader.attempts()) {
    rows++;
    const run = runs.get(a.runId);
    const sent = a.outcome === 'fetched' || a.outcome === 'overridden' || (a.outcome === 'error' && a.status !== null);
    if (sent && run === undefined) {
      problems.push({ url: a.url, problem: `sent (${a.outcome}) in run ${a.runId}, which the audit does not hold: whose rules applied is unknown` });
      continue;
    }
    // A row saying `overridden` went under override by its own account: it is held to the run's
    // list of overridden hosts where the run recorded one. An error row of such a host (a 503) says
    // nothing of the override: the list tells.
    const listed = sent && run !== undefined && underOverride(run.override, a.url);
    const overridden = a.outcome === 'overridden' || listed;
    if (a.outcome === 'overridden' && run !== undefined && run.override !== null && !listed) {
      problems.push({ url: a.url, problem: `overridden, but run ${a.runId} overrode no such host` });
    }
    if (a.policySha256 === null) {
      // Without robots.txt (4xx, or a redirect chain past its limit: RFC 9309 §2.3.1.3) all is allowed.
      const unavailable = typeof a.policyStatus === 'number' && a.policyStatus >= 300 && a.policyStatus < 500 && a.policyStatus !== 429;
      if (sent && !overridden && !unavailable) problems.push({ url: a.url, problem: `sent (${a.outcome}) without a policy stamp, robots.txt status ${a.policyStatus ?? 'none'}` });
      continue;
    }
    checked++;
    let robots = parsed.get(a.policySha256);
    if (robots === undefined) {
      const p = reader.policy(a.policySha256);
      robots = p ? parseRobotsTxt(p.body, { url: p.finalUrl }) : null;
      parsed.set(a.policySha256, robots);
      if (p) {
        const how = textHashesTo(p.body, p.sha256);
        hashOk.set(a.policySha256, how);
        if (!how) problems.push({ url: p.robotsUrl, problem: `the stored text of policy ${p.sha256} does not hash to its key: it is not the file that was fetched` });
      }
    }
    if (robots === null) {
      problems.push({ url: a.url, problem: `policy ${a.policySha256} is not stored` });
      continue;
    }
    // The stamp names the robots.txt of the URL's own origin (RFC 9309 §2.3): another origin's
    // file, however permissive, did not govern it.
    if (a.robotsUrl !== null && sameOrigin(a.robotsUrl, a.url) === false) {
      problems.push({ url: a.url, problem: `stamped with ${a.robotsUrl}, the robots.txt of another origin` });
      continue;
    }
    const tokens = run?.tokens;
    if (!tokens) continue;
    if (a.outcome === 'blocked' && a.reason === 'disallowed-by-rule') {
      const m = robots.check(a.url, tokenInForce(robots, tokens));
      if (m.allowed || m.rule?.line !== a.ruleLine) {
        problems.push({ url: a.url, problem: `re-deciding from the stored text gives ${m.allowed ? 'allowed' : `line ${m.rule?.line}`}, the row says line ${a.ruleLine}` });
      }
    } else if (sent && !overridden) {
      const m = robots.check(a.url, tokenInForce(robots, tokens));
      if (!m.allowed) {
        problems.push({ url: a.url, problem: `sent (${a.outcome}), but the stored text disallows it: line ${m.rule?.line} "${m.rule?.pattern}" (not under override)` });
      }
    }
  }
  const texts = [...hashOk.values()];
  const exact = texts.filter((t) => t === 'exact').length;
  const decoded = texts.filter((t) => t === 'decoded').length;
  if (opts.json) {
    out(JSON.stringify({ type: 'verify', stampsChecked: checked, unstamped: rows - checked, policies: texts.length, textsHashExact: exact, textsHashDecoded: decoded, problems }));
  } else {
    out(`${checked} stamped attempts checked against ${texts.length} stored policies; ${exact} texts re-hash to their key exactly${decoded ? `, ${decoded} once re-encoded as the octets they were decoded from (UTF-16 or invalid UTF-8 on the wire)` : ''}`);
    // Said, not skipped silently: rows with no policy to re-decide from are held only to sending nothing they may not.
    if (rows > checked) out(`${rows - checked} more ${rows - checked === 1 ? 'row has' : 'rows have'} no stamp to re-decide from (robots.txt unavailable or unreachable, a line that was no URL, a check that failed): checked only that nothing was sent that could not be`);
    for (const p of problems.slice(0, 50)) out(`PROBLEM  ${p.url}: ${p.problem}`);
    out(problems.length ? `${problems.length} problems` : 'every stamp checks out');
  }
  return problems.length ? AUDIT_EXIT.verifyFailed : AUDIT_EXIT.ok;
}
