// Audit rows. Written once, when the thing happens; never updated (history is never rewritten).
// Times are ISO 8601 strings.
import type { PolicySnapshot } from '../gate/policy-record.js';
import type { UsageVerdict } from '../usage/types.js';

export type AttemptOutcome = 'fetched' | 'blocked' | 'skipped' | 'error' | 'overridden';

/** One request attempt (a page, a redirect hop, or a browser subresource). */
export interface AttemptRow {
  /** Run identifier (one crawl invocation, or a fleet run name). */
  readonly runId: string;
  readonly url: string;
  readonly host: string;
  /** ISO 8601. */
  readonly startedAt: string;
  /** ISO 8601. */
  readonly endedAt: string;
  readonly outcome: AttemptOutcome;
  /** HTTP status of the document response; null when nothing was sent. */
  readonly status: number | null;
  readonly bytes: number | null;
  /** sha256 (hex) of the saved content. */
  readonly contentSha256: string | null;
  /** Where the content was saved, relative to the output DIR. */
  readonly savedPath: string | null;
  /** The governing policy's stamp, taken when the attempt happened. */
  readonly policySha256: string | null;
  readonly robotsUrl: string | null;
  readonly policyFetchedAt: string | null;
  readonly policyStatus: number | string | null;
  /** A gate DecisionReason, or a crawl reason such as `crawl-delay-too-long`, `invalid-url`, `http-error`. */
  readonly reason: string;
  readonly ruleLine: number | null;
  readonly rulePattern: string | null;
  /** The URL that led here: the previous redirect hop, or for subresources the page. */
  readonly parentUrl: string | null;
  /** `page`, `redirect`, `subresource`, `sitemap` (a sitemap request made by discovery),
   *  `tdmrep` (an origin's /.well-known/tdmrep.json, read under `--purpose`), or `navigation`
   *  (a frame's navigation in a browsing session, `robots-gate browser`). */
  readonly kind: 'page' | 'redirect' | 'subresource' | 'sitemap' | 'tdmrep' | 'navigation';
  /** What the wait before this request came from: `crawl-delay`, `floor`, `override`, `backoff`, or null. */
  readonly waitReason: string | null;
  /** Interval applied to this host for this request (ms). */
  readonly intervalMs: number | null;
  readonly error: string | null;
  /** 1 for the first try of a URL; a retry after a 429/503 back-off has 2, 3, … (absent: 1). */
  readonly attempt?: number;
  /** Response headers of the request (lower-case names), when it was answered. */
  readonly headers?: Readonly<Record<string, string>> | null;
  /** The Location of a 3xx answer (absolute); the crawl schedules it as a request of its own. */
  readonly location?: string | null;
  /** True when this row settles its URL for the run (no further attempt follows): `--resume`
   *  skips URLs with a final row. Redirect hops and retried attempts are not final. */
  readonly final?: boolean;
  /** True when the body was cut at the page-size cap (`--max-page-bytes`): `bytes`, the saved
   *  file and `contentSha256` cover only the part read; the rest was never read. */
  readonly truncated?: boolean;
  /** Kind `sitemap`: what reading it found. Any other row of a URL a sitemap listed: the site's
   *  claims about it (recorded, never obeyed). Absent otherwise. */
  readonly sitemap?: SitemapRead | SitemapClaims | null;
  /** The usage verdict of a fetched document (or of a URL refused as `usage-reserved`): per
   *  purpose, what the signals in force at that moment said. Beside access, never part of it. */
  readonly usage?: UsageVerdict | null;
}

/** On a row of kind `sitemap`. Counts are of entries kept; dropped ones are counted per reason. */
export interface SitemapRead {
  /** `urlset`, `sitemapindex`, `text`, `rss`, `atom`, `html` or `unknown`. */
  readonly format: string;
  /** 1 for a sitemap named by robots.txt, 2 for one an index listed, … */
  readonly depth: number;
  /** The robots.txt whose Sitemap line led here (parentUrl is the direct referrer). */
  readonly advertisedBy: string;
  readonly urls: number;
  readonly sitemaps: number;
  readonly dropped: Readonly<Record<string, number>>;
  /** The cap that stopped the read early (`max-urls`, `max-bytes`, `max-ratio`, `timeout`, `max-depth`), if any. */
  readonly limit: string | null;
  readonly problems: readonly string[];
  readonly gzip: boolean;
}

/** On the row of a URL that came from a sitemap: where from, and what the site claimed. */
export interface SitemapClaims {
  /** The sitemap that listed the URL. */
  readonly source: string;
  /** The robots.txt that advertised that sitemap's chain. */
  readonly advertisedBy: string;
  readonly lastmod?: string;
  readonly changefreq?: string;
  readonly priority?: string;
  /** In the run's freshness sample. */
  readonly sampled: boolean;
}

/** One distinct robots.txt body, keyed by sha256, so any stamp can be re-checked later: the snapshot
 *  a door builds from the gate's record (its `fetchedAt` is the first time this body was seen). */
export type PolicyRow = PolicySnapshot;

/** A robots.txt that changed during a run. */
export interface PolicyChangeRow {
  readonly runId: string;
  readonly origin: string;
  readonly oldSha256: string | null;
  readonly newSha256: string | null;
  /** ISO 8601: when the new policy was received; attempts after it are governed by the new one. */
  readonly at: string;
}

/** One crawl invocation (a resumed run is a new run that names the one it resumes). */
export interface RunRow {
  readonly runId: string;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly userAgent: string;
  /** The command line options that matter for re-reading the run (JSON-serialisable). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The run this one resumes, if any. */
  readonly resumeOf: string | null;
  /** Fleet worker name, if any. */
  readonly worker: string | null;
}

/** Written once when a run ends (a run killed mid-way has none). */
export interface RunEndRow {
  readonly runId: string;
  /** ISO 8601. */
  readonly endedAt: string;
  /** `completed`, `interrupted`, or `failed`. */
  readonly status: 'completed' | 'interrupted' | 'failed';
  /** Final rows per outcome. */
  readonly counts: Readonly<Record<string, number>>;
  readonly error: string | null;
}

/** Where audit rows go. Implementations: SQLite (default), JSONL. */
export interface AuditSink {
  recordAttempt(row: AttemptRow): void;
  /** Idempotent on sha256. */
  recordPolicy(row: PolicyRow): void;
  recordPolicyChange(row: PolicyChangeRow): void;
  recordRun?(row: RunRow): void;
  recordRunEnd?(row: RunEndRow): void;
  /** Make the rows recorded so far durable (a batching sink commits them). A crawl calls it with the
   *  host before it sends each request there: at least that host's rows must be durable on return.
   *  Without a host, all of them. Optional: a sink that writes each row at once needs none. */
  flush?(host?: string): void;
  close(): void;
}
