// The crawl job's options and its result: what a library user of CrawlJob passes and gets back.
import type { AuditSink } from '../audit/types.js';
import type { Frontier } from '../politeness/types.js';
import type { RateLimiter } from '../stores/types.js';
import type { Purpose } from '../usage/index.js';
import type { CrawlStats } from './attempt-log.js';
import type { CrawlGate, DocumentTransport } from './types.js';

// CrawlJob's back-off terms are the gate's defaults; a resumed run reads a stopped run's back-off by them.
export { DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS } from '../gate/options.js';

export interface CrawlJobOptions {
  readonly gate: CrawlGate;
  readonly frontier: Frontier;
  readonly transport: DocumentTransport;
  readonly audit: AuditSink;
  /** Documents are saved here (see documentPath). */
  readonly outDir: string;
  readonly runId: string;
  /** A Crawl-delay above this (SECONDS) skips the host's URLs, reason `crawl-delay-too-long`,
   *  unless `clampCrawlDelay`. Default 60. */
  readonly maxCrawlDelaySeconds?: number;
  /** Keep such hosts, at `maxCrawlDelaySeconds` between requests. Default false. */
  readonly clampCrawlDelay?: boolean;
  /** Interval (ms) for a host under override; must match the frontier's. Default 10,000. */
  readonly overrideIntervalMs?: number;
  /** The frontier's floor (ms), without jitter. Used only for a host's first request of this run,
   *  which the frontier does not space: it keeps this from any earlier request the limiter knows
   *  (a robots.txt request, a request of another door, a seeded earlier run). Default: the
   *  frontier's `minIntervalMs`, else 0. */
  readonly minIntervalMs?: number;
  /** Where each host's slot is taken before a request is sent, so that the gate's robots.txt
   *  requests and other doors (gate.fetch, the interceptor) sharing it keep one clock per host
   *  with the crawl. Default: the gate's `limiter`, else the process's one. */
  readonly limiter?: RateLimiter;
  /** Requests in flight at most (a URL's robots.txt and document requests): a URL holds a slot
   *  from its check to the end of its response, not while its document is saved and its rows
   *  written, so give the frontier room for more URLs in hand than this (the CLI gives it twice).
   *  Absent: no limit here, the frontier's concurrency is the only one. */
  readonly concurrency?: number;
  /** Retries of a URL answered 429 or 503. Default 2. */
  readonly maxRetries?: number;
  /** Back-off (ms) after a 429/503 without a usable Retry-After. Default DEFAULT_BACKOFF_MS (10,000). */
  readonly defaultBackoffMs?: number;
  /** Longest Retry-After honoured (ms); longer ones are cut to this. Default MAX_BACKOFF_MS (3,600,000). */
  readonly maxBackoffMs?: number;
  /** Redirect hops followed at most from a URL of the list (when the transport leaves
   *  redirects to the crawl). Default 5. */
  readonly maxRedirects?: number;
  /** URLs an earlier run settled (what `--resume` skips): a redirect into one is not sent again
   *  (a loop interrupted mid-way, resumed, asked its start twice). */
  readonly settledUrls?: ReadonlySet<string>;
  /** Stops taking new URLs; requests in flight are aborted (their rows say so, not final). */
  readonly signal?: AbortSignal;
  /** After the signal aborts, how long (ms) to wait for the work in flight to finish its
   *  frontier and store calls; a shared frontier whose Redis is away would hold them for ever.
   *  Default 2,000. */
  readonly abortGraceMs?: number;
  /** For the audit's run row (see CrawlJob.recordStart): the User-Agent (default: the gate's),
   *  the options that matter for re-reading the run, the run this one resumes, the fleet
   *  worker's name. */
  readonly userAgent?: string;
  readonly runOptions?: Readonly<Record<string, unknown>>;
  readonly resumeOf?: string | null;
  readonly worker?: string | null;
  /** What the documents are for. Robots.txt usage lines that reserve it refuse the URL (the gate
   *  with the same `purpose` does that); an origin's TDMRep file that reserves it refuses the URL
   *  too (read once per origin, only under a purpose); a response whose verdict reserves it is
   *  fetched but not kept (reason `usage-reserved`). Without one, verdicts are recorded only. */
  readonly purpose?: Purpose;
}

export interface CrawlResult {
  readonly status: 'completed' | 'interrupted';
  readonly stats: CrawlStats;
  /** Items still waiting on the frontier or the gate's store when an interrupted run gave up
   *  on them (`abortGraceMs`): nothing more of them is sent; a shared frontier hands their URLs
   *  to other workers when their leases expire. */
  readonly abandoned: number;
}

/**
 * A page's slot that opens later than this (ms) is handed back to the frontier, not waited for
 * (see CrawlJob.process). Handing back costs a frontier release and take (two Lua round trips
 * for a fleet's: ms on a LAN) and a second, cached, check: a wait under a few tens of ms costs
 * the concurrency slot less, and is what rounding and clock skew between frontier and limiter
 * look like. What the frontier did not know (a Crawl-delay just learned, the floor after a
 * robots.txt request) is a wait of hundreds of ms or more.
 */
export const REQUEUE_PAST_MS = 50;
