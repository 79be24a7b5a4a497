// `robots-gate crawl FILE|- --user-agent UA --out DIR`: a polite, audited crawl of a URL list.
import { createHash, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { AuditWriteError } from '../audit/errors.js';
import { JsonlAuditSink } from '../audit/jsonl-sink.js';
import { SqliteAuditSink } from '../audit/sqlite-sink.js';
import { TeeAuditSink } from '../audit/tee-sink.js';
import type { AttemptRow, AuditSink, SitemapClaims } from '../audit/types.js';
import { CrawlJob } from '../crawl/crawl-job.js';
import { OutputWriteError, startDocumentWriter } from '../crawl/document-store.js';
import { HttpTransport } from '../crawl/http-transport.js';
import type { DocumentTransport } from '../crawl/types.js';
import { readUrlList } from '../crawl/url-list.js';
import { Agent, type Dispatcher } from 'undici';
import { OWN_AGENT, RobotsGate } from '../gate/gate.js';
import { createResolvingAgent } from '../fetcher/resolving-agent.js';
import { MemoryFrontier } from '../politeness/memory-frontier.js';
import { pacerFor } from '../politeness/pacer.js';
import type { FrontierOptions } from '../politeness/types.js';
import { ClaimsAuditSink, freshnessOutput, sitemapPhase, sitemapsListNote } from './crawl-sitemaps.js';
import { tolerateBrokenPipe } from './broken-pipe.js';
import { openFleet, type Fleet } from './crawl-fleet.js';
import { readEarlierRuns } from './crawl-resume.js';
import { lockAudit } from './crawl-lock.js';
import { startProgress } from './crawl-progress.js';
import { BrowserNotFoundError } from '../browser/errors.js';
import { DEFAULT_CHROMIUM } from '../browser/launch.js';
import { formatSummary, summaryObject, unreachableWarning, type SubresourceCounts } from './crawl-summary.js';
import { fsProblem } from './fs-words.js';
import { count as plural } from './plural.js';
import { cliIdentity, PRODUCT_TOKEN_HELP } from './identity.js';
import { collect } from './repeatable.js';
import type { Purpose } from '../usage/index.js';
import { checkCrawlOptions, noUrlWhy, type CrawlCliOptions } from './crawl-options.js';
import { makeOutDir } from './out-dir.js';

/** Exit codes, as `--help` documents them. */
export const CRAWL_EXIT = {
  ok: 0,
  /** Completed, but some URLs ended in error, some robots.txt was unreachable, or some input
   *  lines were not URLs. */
  problems: 1,
  usage: 2,
  audit: 3,
  output: 4,
  redis: 5,
  interrupted: 130,
} as const;

export function crawlCommand(): Command {
  return new Command('crawl')
    .description('fetch every URL of a list that robots.txt allows, as fast as each site allows and no faster, with an audit of every attempt')
    .argument('<file>', 'URL list, one a line (blank lines and # comments skipped); - for stdin')
    .requiredOption('--user-agent <ua>', 'the User-Agent sent; rules match its product token (e.g. "MyBot/1.0 (+https://example.com/bot)")')
    .option('--product-token <name>', PRODUCT_TOKEN_HELP, collect, [])
    .requiredOption('--out <dir>', 'where documents and audit.sqlite go')
    .option('--concurrency <n>', 'requests in flight at most, over all hosts, robots.txt ones included', '16')
    .option('--min-interval <ms>', 'floor between two requests to one host, in ms (plus up to 20 % jitter)', '2000')
    .option('--max-crawl-delay <s>', 'a Crawl-delay over this many seconds skips the host', '60')
    .option('--clamp-crawl-delay', 'keep hosts whose Crawl-delay is over the maximum, at the maximum')
    .option('--override <host>', 'fetch this host even where robots.txt disallows (documented right only); repeatable', collect, [])
    .option('--override-interval <ms>', 'interval for a host under override, in ms (default: env ROBOTS_OVERRIDE_INTERVAL_MS, else 10000)')
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention); repeatable', collect, [])
    .option('--recheck-after <ms>', "refetch a host's robots.txt after this many ms (default 24 h)")
    .option('--resume', 'continue the crawl recorded in --out, skipping URLs already settled')
    .option('--audit-jsonl <file>', 'also stream the audit rows to FILE as JSON lines')
    .option('--json', 'one JSON object a line on stdout: each attempt, then a summary')
    .option('--timeout <ms>', 'time allowed for one document request, in ms', '30000')
    .option('--max-page-bytes <n>', 'body bytes read at most per document; the rest is not read and the row says truncated', String(10 * 1024 * 1024))
    .option('--robots-timeout <ms>', 'time allowed for one robots.txt fetch, in ms (then the origin is unreachable: all disallowed)', '10000')
    .addOption(new Option('--progress-interval <ms>', 'between plain progress lines when stderr is not a terminal').default('5000').hideHelp())
    .option('--redis <url>', 'share the frontier, policies and per-host rate with other workers through Redis')
    .option('--run <name>', 'with --redis: the run name the workers share')
    .option('--worker <name>', 'with --redis: this worker\'s name (its audit is DIR/audit-<worker>.sqlite)')
    .option('--share-robots-across-runs', "with --redis: use robots.txt copies other runs on this Redis fetched while fresh (default: each --run fetches its own)")
    .option('--purpose <purpose>', 'what the documents are for: search, ai-input or ai-train; what robots.txt or TDMRep reserves for it is not fetched, what a response reserves is not kept (default: usage is recorded only)')
    .option('--browser', 'render each allowed HTML page in headless Chromium; every request the page makes is gated and audited (kind subresource)')
    .option('--screenshot', 'with --browser: save a full-page PNG next to each rendered document (<path>.png)')
    .option('--sitemaps', "FILE holds origins (or URLs on them): crawl what their robots.txt Sitemap: lines list (sitemaps read through the gate, a row of kind sitemap each)")
    .option('--max-urls-per-host <n>', 'with --sitemaps: URLs taken from sitemaps per host at most', '100000')
    .option('--chromium <path>', "with --browser: the Chromium binary (default /usr/bin/chromium, Debian's chromium package)")
    .addHelpText(
      'after',
      `
Exit codes:
  0    completed: every URL fetched, blocked or skipped as its robots.txt says
  1    completed, but some URLs ended in error (network, 5xx), some robots.txt was unreachable
       (its URLs all disallowed, RFC 9309 §2.3.1.4; stderr names the hosts), or some input
       lines were not URLs; with --sitemaps, some sitemap failed, was blocked, was an HTML page
       (not a sitemap: it lists nothing) or was cut at a limit
  2    bad usage: a missing or unreadable FILE, a bad option value, no URL in the input, a
       --user-agent that names no crawler (pass --product-token) or lacks the --product-token,
       --run without --redis, --browser without Chromium, another crawl writing the same
       audit in --out (same DIR, or the same --worker name)
  3    the audit cannot be written (read-only DIR, disk full): rows written before are intact
  4    documents cannot be saved under --out (read-only, disk full)
  5    Redis unreachable or unusable at start (with --redis), or the run's state lost from
       it mid-run (restarted empty, flushed): rows written are intact; --resume finishes
  130  interrupted (SIGINT/SIGTERM): rows written are intact; --resume continues`,
    )
    .action(async (file: string, opts: CrawlCliOptions) => {
      // Progress and logs are no part of the job: a reader of them that goes away stops nothing.
      tolerateBrokenPipe();
      process.exitCode = await runCrawl(file, opts);
      // Interrupted: every row is written and the audit closed. What is left (a robots.txt fetch
      // that waits out --robots-timeout, a Redis that is away) must not hold the exit.
      if (process.exitCode === CRAWL_EXIT.interrupted) process.exit(CRAWL_EXIT.interrupted);
    });
}

const say = (s: string) => process.stderr.write(`robots-gate crawl: ${s}\n`);

async function runCrawl(file: string, opts: CrawlCliOptions): Promise<number> {
  let concurrency: number, minIntervalMs: number, maxCrawlDelaySeconds: number, timeoutMs: number, progressMs: number;
  let robotsTimeoutMs: number, maxPageBytes: number;
  let recheckAfterMs: number | undefined, overrideIntervalMs: number | undefined;
  let maxUrlsPerHost: number;
  try {
    ({ concurrency, minIntervalMs, maxCrawlDelaySeconds, timeoutMs, progressMs, robotsTimeoutMs, maxPageBytes, recheckAfterMs, overrideIntervalMs, maxUrlsPerHost } = checkCrawlOptions(opts));
  } catch (err) {
    say((err as Error).message);
    return CRAWL_EXIT.usage;
  }

  // The gate's own checks (user agent, --resolve entries) before anything is created under --out:
  // bad usage leaves no empty audit behind that the next run would call "earlier runs".
  const productToken = opts.productToken.length ? { productToken: opts.productToken } : {};
  try {
    cliIdentity(opts.userAgent, opts.productToken);
    await new RobotsGate({ userAgent: opts.userAgent, ...productToken, resolve: opts.resolve, timeoutMs: robotsTimeoutMs }).close();
  } catch (err) {
    say((err as Error).message);
    return CRAWL_EXIT.usage;
  }

  // --browser without a Chromium to launch is bad usage too: say so before --out is touched.
  if (opts.browser) {
    const executable = opts.chromium ?? DEFAULT_CHROMIUM;
    try {
      fs.accessSync(executable, fs.constants.X_OK);
    } catch {
      say(new BrowserNotFoundError(executable).message);
      return CRAWL_EXIT.usage;
    }
  }

  // Documents are saved by a thread of their own: booted now, while the list is read.
  startDocumentWriter();
  // The list is read before --out is touched: a list that cannot be read leaves no empty --out.
  let list;
  try {
    list = await readUrlList(file);
  } catch (err) {
    say(`cannot read the URL list ${file}: ${fsProblem(err)}`);
    return CRAWL_EXIT.usage;
  }
  for (const bad of list.invalid.slice(0, 10)) say(`line ${bad.line}: ${bad.message} (skipped)`);
  // A list with no URL at all stops here, before any audit exists: "all in the audit" was untrue then.
  if (list.invalid.length > 10) say(`… and ${list.invalid.length - 10} more lines that are not URLs${list.urls.length > 0 ? ' (all in the audit)' : ''}`);
  if (opts.sitemaps) {
    const note = sitemapsListNote(list.urls);
    if (note) say(note);
  }
  if (list.duplicates > 0) say(`${plural(list.duplicates, 'line repeats', 'lines repeat')} an earlier URL (after normalisation: fragment dropped, host lower-cased): each URL is fetched once`);
  if (list.urls.length === 0) {
    say(`no URL to crawl in ${file === '-' ? 'the input' : file}: ${noUrlWhy(list.lines, list.invalid.length)}`);
    return CRAWL_EXIT.usage;
  }

  // The output directory: created if missing, and it must be writable.
  const outDir = path.resolve(opts.out);
  try {
    makeOutDir(outDir);
    fs.accessSync(outDir, fs.constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    say(`cannot write to --out ${outDir}: ${code === 'EEXIST' ? 'it is a file, not a directory' : fsProblem(err)}`);
    return CRAWL_EXIT.output;
  }

  // What a previous run settled (--resume), read before this run appends.
  // A fleet worker writes its own audit file (`robots-gate audit DIR` reads them as one).
  const worker = opts.worker ?? (opts.redis ? `${process.pid}` : undefined);
  const auditName = worker ? `audit-${worker.replace(/[^A-Za-z0-9_.-]/g, '_')}.sqlite` : 'audit.sqlite';
  // One crawl per audit file at a time (a second one would double every host's rate); released
  // when the process exits, however it exits short of SIGKILL (a later crawl takes over then).
  try {
    const lock = lockAudit(path.join(outDir, auditName));
    process.once('exit', () => lock.release());
  } catch (err) {
    const locked = (err as { code?: string }).code === 'ERR_CRAWL_LOCKED';
    say(`${(err as Error).message}${locked && opts.redis ? ' (each worker of a fleet needs its own --worker name)' : ''}`);
    return locked ? CRAWL_EXIT.usage : CRAWL_EXIT.output;
  }
  // What the list holds, after normalisation: a resumed run says when it is not the same list.
  const listSha256 = createHash('sha256').update(list.urls.map((u) => u.url).join('\n')).digest('hex');
  const earlier = readEarlierRuns({ outDir, auditName, list, listSha256, resume: !!opts.resume, redis: !!opts.redis, userAgent: opts.userAgent, productToken: opts.productToken, purpose: opts.purpose ?? null, say });
  if (earlier === 'usage') return CRAWL_EXIT.usage;
  if (earlier === 'audit') return CRAWL_EXIT.audit;
  const { done, lastSent, unfollowed, resumeOf } = earlier;

  // The JSONL stream appends to its file: pointed at the SQLite audit (or its WAL) it would write
  // into the database, pointed at the URL list it would grow the input of the next run.
  if (opts.auditJsonl) {
    const jsonl = realish(opts.auditJsonl);
    const sqlite = realish(path.join(outDir, auditName));
    const clash = [sqlite, `${sqlite}-wal`, `${sqlite}-shm`, `${sqlite}.lock`].includes(jsonl) ? 'the SQLite audit' : file !== '-' && realish(file) === jsonl ? 'the URL list' : null;
    if (clash) {
      say(`--audit-jsonl ${opts.auditJsonl} is ${clash}: give it a file of its own`);
      return CRAWL_EXIT.usage;
    }
  }
  let audit: AuditSink;
  const sinks: AuditSink[] = [];
  try {
    // Batched: committed before each request is sent (see SqliteAuditSink), not one transaction a row.
    sinks.push(new SqliteAuditSink(path.join(outDir, auditName), { batch: true }));
    if (opts.auditJsonl) sinks.push(new JsonlAuditSink(opts.auditJsonl));
  } catch (err) {
    for (const s of sinks) s.close();
    say((err as Error).message);
    return CRAWL_EXIT.audit;
  }
  if (opts.json) sinks.push(new StdoutAttemptSink());
  audit = sinks.length === 1 ? sinks[0]! : new TeeAuditSink(sinks);
  // --sitemaps: each URL's claims (lastmod, changefreq, priority) ride on its rows.
  const claims = new Map<string, SitemapClaims>();
  if (opts.sitemaps) audit = new ClaimsAuditSink(audit, claims);

  let fleet: Fleet | undefined;
  let gate: RobotsGate | undefined;
  let dispatcher: Dispatcher | undefined;
  let transport: DocumentTransport | undefined;
  let sitemapProblems = false;
  let sitemapRows = 0;
  let invalidRecorded = 0;
  try {
    const frontierOptions: FrontierOptions = { minIntervalMs, concurrency, overrideIntervalMs };
    if (opts.redis) {
      try {
        fleet = await openFleet(opts.redis, opts.run!, worker!, frontierOptions, say, opts.shareRobotsAcrossRuns === true);
      } catch (err) {
        say((err as Error).message);
        return CRAWL_EXIT.redis;
      }
    }
    // One dispatcher for robots.txt and documents alike: the transport sends each decided document
    // request on it directly (undici request()), the gate everything else. One connection per
    // origin: the crawl sends one request at a time per host anyway, and with undici's default (no
    // limit) a page request sent while robots.txt's response was still being finished opened a
    // second socket, for 45 % of hosts, leaving the first idle.
    const agentOptions = { ...OWN_AGENT, connections: 1 };
    dispatcher = opts.resolve.length ? createResolvingAgent(opts.resolve, agentOptions) : new Agent(agentOptions);
    try {
      gate = new RobotsGate({
        userAgent: opts.userAgent,
        ...productToken,
        dispatcher,
        timeoutMs: robotsTimeoutMs,
        // The job takes each host's slot itself (frontier, then the gate's limiter); the gate's
        // own robots.txt requests take it too, at the crawl's floor.
        politeness: false,
        minIntervalMs,
        ...(recheckAfterMs !== undefined ? { maxAgeMs: recheckAfterMs, minAgeMs: Math.min(recheckAfterMs, 60_000) } : {}),
        ...(opts.override.length ? { override: opts.override } : {}),
        ...(overrideIntervalMs !== undefined ? { overrideIntervalMs } : {}),
        // A fleet's robots.txt requests take the shared slots too (its frontier's leases are
        // this limiter's: the ones sent for a taken URL go under its lease).
        ...(fleet ? { store: fleet.store, limiter: fleet.limiter } : {}),
        ...(opts.purpose !== undefined ? { purpose: opts.purpose as Purpose } : {}),
      });
    } catch (err) {
      say((err as Error).message);
      return CRAWL_EXIT.usage;
    }
    // URLs in hand at most: twice the requests in flight, so that while some URLs save their
    // documents and write their rows, --concurrency requests are still out (the job's slots).
    const frontier = fleet?.frontier ?? new MemoryFrontier({ ...frontierOptions, concurrency: 2 * concurrency, overrideIntervalMs: gate.overrideIntervalMs });
    // With the hold (a back-off, the Crawl-delay kept): a host not open yet is not taken, so no
    // worker waits it out in the limiter holding one of the --concurrency slots.
    for (const [host, last] of lastSent) frontier.seedHost?.(host, last.endedAt, last.intervalMs, { until: last.notBefore, reason: last.notBeforeReason });
    // The limiter too: this run's first request to a host, its robots.txt included, keeps the
    // interval after the earlier run's last response, the earlier run's Crawl-delay included.
    const pacer = pacerFor(gate.limiter);
    for (const [host, last] of lastSent) await pacer.seed(host, last.endedAt, last.notBefore);
    const controller = new AbortController();
    // Every request in flight and every wait for a host's slot listens on the run's signal (Ctrl-C
    // ends them all): Node's default of 10 listeners would warn of a leak at the default concurrency.
    setMaxListeners(8 * concurrency + 16, controller.signal);
    const runId = `${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
    const subresources: SubresourceCounts = {};
    if (opts.browser) {
      try {
        // Loaded only for --browser: playwright-core is an optional peer dependency.
        const { BrowserTransport } = await import('../crawl/browser-transport.js');
        transport = await BrowserTransport.open({
          gate,
          audit: {
            recordAttempt: (row) => {
              subresources[row.outcome] = (subresources[row.outcome] ?? 0) + 1;
              audit.recordAttempt(row);
            },
          },
          runId,
          resolve: opts.resolve,
          timeoutMs,
          maxBytes: maxPageBytes,
          ...(opts.chromium ? { executablePath: opts.chromium } : {}),
          ...(opts.screenshot ? { screenshotDir: outDir } : {}),
        });
      } catch (err) {
        say((err as Error).message);
        return CRAWL_EXIT.usage;
      }
    } else {
      // Redirects come back to the crawl, which schedules each target under its own host's
      // politeness (a hop to another host must keep that host's interval too).
      transport = new HttpTransport({ gate, timeoutMs, maxBytes: maxPageBytes, followRedirects: false, dispatcher, userAgent: gate.userAgent });
    }
    const job = new CrawlJob({
      gate,
      frontier,
      transport,
      audit,
      outDir,
      runId,
      maxCrawlDelaySeconds,
      clampCrawlDelay: !!opts.clampCrawlDelay,
      overrideIntervalMs: gate.overrideIntervalMs,
      minIntervalMs,
      settledUrls: done,
      signal: controller.signal,
      // A fleet's frontier counts the URLs this worker holds as its --concurrency (its leases).
      ...(fleet ? {} : { concurrency }),
      userAgent: opts.userAgent,
      ...(opts.purpose !== undefined ? { purpose: opts.purpose as Purpose } : {}),
      runOptions: {
        file,
        listSha256,
        concurrency,
        minIntervalMs,
        maxPageBytes,
        maxCrawlDelaySeconds,
        clampCrawlDelay: !!opts.clampCrawlDelay,
        override: opts.override,
        overrideIntervalMs: gate.overrideIntervalMs,
        recheckAfterMs: recheckAfterMs ?? null,
        resolve: opts.resolve,
        productToken: opts.productToken,
        resume: !!opts.resume,
        run: opts.run ?? null,
        purpose: opts.purpose ?? null,
      },
      resumeOf,
      worker: worker ?? null,
    });

    try {
      job.recordStart();
      // A resumed run's input lines that were not URLs have their rows already (settled).
      for (const bad of list.invalid) {
        if (done.has(bad.text)) continue;
        job.recordInvalid(bad.text, bad.reason, bad.message);
        invalidRecorded++;
      }
    } catch (err) {
      say((err as Error).message);
      return CRAWL_EXIT.audit;
    }

    // From the run's start row on, the sitemap phase included: it can wait long (a slow sitemap
    // server, hosts an earlier run left under a back-off), and Ctrl-C there must end the run as it
    // does mid-crawl (exit 130, its end recorded), not kill the process by the signal.
    let interrupts = 0;
    const onSignal = () => {
      interrupts++;
      if (interrupts > 1) process.exit(CRAWL_EXIT.interrupted);
      say('stopping: the requests in flight are aborted and recorded (again to quit at once; --resume continues)');
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let listed: readonly { url: string; host: string }[] = list.urls;
    if (opts.sitemaps) {
      const phase = await sitemapPhase({
        gate,
        audit,
        runId,
        origins: [...new Set(list.urls.map((u) => new URL(u.url).origin))],
        claims,
        outDir,
        resume: !!opts.resume,
        minIntervalMs,
        maxUrlsPerHost,
        timeoutMs,
        signal: controller.signal,
        progressMs,
        say,
        ...(fleet ? { limiter: fleet.limiter, claim: fleet.claimSitemap } : {}),
        // The holds seeded above: a held origin is read once its host opens, after the open ones.
        holds: new Map([...lastSent].map(([host, s]) => [host, { until: s.notBefore, reason: s.notBeforeReason }])),
      });
      // This run's sitemap requests: a later end, no hold of their own (discovery does not back
      // off); the earlier run's hold seeded above stays (seedHost keeps the later one).
      for (const [host, last] of phase.lastSent) frontier.seedHost?.(host, last.endedAt, last.intervalMs);
      sitemapProblems = phase.problems;
      sitemapRows = phase.rows;
      listed = phase.urls;
    }
    const todo = listed.filter((u) => !done.has(u.url));
    if (opts.resume && done.size) say(`resuming: ${plural(listed.length - todo.length, 'URL')} already settled, ${todo.length} to go`);
    const added = await frontier.add(todo);
    // A fleet run name is used once: a run that has finished takes no URL again.
    if (fleet && added === 0 && todo.length > 0 && (await frontier.isDrained())) {
      say(`run ${JSON.stringify(opts.run)} has already finished: nothing was left to do; to crawl the list again, use a new --run name`);
    }
    job.expect(todo, minIntervalMs);
    job.holdBackoffs([...lastSent].flatMap(([host, s]) => (s.notBeforeReason === 'backoff' ? [[host, s.notBefore] as const] : [])));
    await job.resumeRedirects(unfollowed);

    const progress = startProgress(job, frontier, todo.length, progressMs, opts.redis !== undefined, listed.length - todo.length);
    const started = Date.now();
    let status: 'completed' | 'interrupted' | 'failed' = 'failed';
    let failure: unknown;
    let abandoned = 0;
    try {
      ({ status, abandoned } = await job.run());
    } catch (err) {
      failure = err;
    } finally {
      progress.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    if (abandoned > 0) {
      say(
        fleet
          ? `${plural(abandoned, 'URL was', 'URLs were')} still waiting for Redis: nothing more of them is sent; the run's other workers (or a restart) take them when their leases expire`
          : `${plural(abandoned, 'URL was', 'URLs were')} still waiting on the gate: nothing more of them is sent; --resume takes them again`,
      );
    }
    // What follows reads the audit back (the freshness of sitemap claims): every row committed.
    // A second failure here (the disk that refused a document refuses the audit too) is not
    // dropped: rows of requests that went out are then missing, and the summary counts them.
    let auditLost: unknown;
    try {
      audit.flush?.();
    } catch (err) {
      if (failure === undefined) failure = err;
      else auditLost = err;
    }
    const stats = job.stats();
    const elapsed = Date.now() - started;
    // JSON: the freshness line comes before the summary, which stays the last line.
    if (opts.sitemaps && opts.json) writeStdout(freshnessOutput(outDir, runId, true));
    if (opts.json) writeStdout(JSON.stringify(summaryObject(stats, runId, elapsed, invalidRecorded, status, subresources, sitemapRows)) + '\n');
    else writeStdout(formatSummary(stats, runId, elapsed, invalidRecorded, status, subresources, sitemapRows));
    if (opts.sitemaps && !opts.json) writeStdout(freshnessOutput(outDir, runId, false));
    if (failure !== undefined) {
      say((failure as Error).message ?? String(failure));
      if (auditLost !== undefined) {
        say(`${(auditLost as Error).message ?? String(auditLost)}: the rows of the last requests sent are not in the audit (the summary counts them); --resume sends them again`);
        return CRAWL_EXIT.audit;
      }
      if (failure instanceof AuditWriteError) return CRAWL_EXIT.audit;
      if (failure instanceof OutputWriteError) return CRAWL_EXIT.output;
      // The run's shared state vanished from Redis: a Redis failure, not a URL's.
      if ((failure as { code?: string }).code === 'ERR_FLEET_STATE_LOST') return CRAWL_EXIT.redis;
      return CRAWL_EXIT.problems;
    }
    const unreachable = unreachableWarning(stats);
    if (unreachable) say(unreachable);
    if (status === 'interrupted') return CRAWL_EXIT.interrupted;
    return stats.outcomes.error > 0 || list.invalid.length > 0 || unreachable || sitemapProblems ? CRAWL_EXIT.problems : CRAWL_EXIT.ok;
  } finally {
    try {
      audit.close();
    } catch {
      // Closing cannot lose committed rows.
    }
    // Bounded: a gate or fleet whose connections hang (a robots.txt fetch in flight, Redis away)
    // must not hold the end of the run; the audit is already closed.
    const closing = (async () => {
      await transport?.close().catch(() => {});
      await gate?.close().catch(() => {});
      await dispatcher?.close().catch(() => {});
      await fleet?.close().catch(() => {});
    })();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closing, new Promise<void>((r) => (timer = setTimeout(r, 1_000)))]);
    clearTimeout(timer);
  }
}

/** The real path of `p`, or its absolute path when it does not exist yet. */
function realish(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function writeStdout(s: string): void {
  try {
    fs.writeSync(1, s);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EPIPE') throw err;
  }
}

/** `--json`: each attempt row as a line on stdout, as it is written. */
class StdoutAttemptSink implements AuditSink {
  recordAttempt(row: AttemptRow): void {
    writeStdout(JSON.stringify({ type: 'attempt', ...row }) + '\n');
  }
  recordPolicy(): void {}
  recordPolicyChange(): void {}
  close(): void {}
}
