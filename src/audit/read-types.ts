// The read side of an audit, as `openAudit` answers it: attempts, policy versions, runs and
// hosts, with where each row came from.
import type { AttemptOutcome, AttemptRow, PolicyChangeRow, PolicyRow } from './types.js';

/** An attempt as stored, with where it came from. */
export interface StoredAttempt extends AttemptRow {
  /** Row number within its file (insertion order). */
  readonly seq: number;
  /** The audit file (base name) the row is in. */
  readonly file: string;
  readonly attempt: number;
  readonly final: boolean;
}

export interface StoredPolicyChange extends PolicyChangeRow {
  readonly file: string;
}

export interface RunSummary {
  readonly runId: string;
  readonly startedAt: string;
  /** ISO 8601, or null when the run never recorded its end (killed, or still running). */
  readonly endedAt: string | null;
  readonly status: 'completed' | 'interrupted' | 'failed' | 'unfinished';
  readonly userAgent: string;
  readonly options: Record<string, unknown>;
  readonly resumeOf: string | null;
  readonly worker: string | null;
  readonly file: string;
  /** Attempt rows per outcome (every row, hops and retries included). */
  readonly outcomes: Partial<Record<AttemptOutcome, number>>;
  /** URLs per outcome they settled as (final rows): a URL answered 503 and then fetched on its
   *  retry is one `fetched` here and two rows in `outcomes`, as the crawl summary counts it. */
  readonly settled: Partial<Record<AttemptOutcome, number>>;
  readonly attempts: number;
}

export interface HostSummary {
  readonly host: string;
  readonly attempts: number;
  readonly outcomes: Partial<Record<AttemptOutcome, number>>;
  /** URLs per outcome they settled as (final rows), as RunSummary.settled. */
  readonly settled: Partial<Record<AttemptOutcome, number>>;
  /** ISO 8601 of the first and last attempt. */
  readonly firstAt: string;
  readonly lastAt: string;
  /** Distinct policy hashes that governed its attempts. */
  readonly policyVersions: number;
  /** Largest interval applied between two requests (ms), and what it came from. */
  readonly maxIntervalMs: number | null;
  readonly maxIntervalReason: string | null;
}

export interface AttemptFilter {
  readonly runId?: string;
  /** `URL.host` (host[:port]). */
  readonly host?: string;
  readonly outcome?: AttemptOutcome;
  readonly url?: string;
  readonly kind?: AttemptRow['kind'];
  readonly policySha256?: string;
  /** ISO 8601 bounds on startedAt (inclusive). */
  readonly since?: string;
  readonly until?: string;
  /** Rows returned at most (after merging files, by startedAt). Default: all. */
  readonly limit?: number;
  readonly offset?: number;
}

/** One version of an origin's robots.txt as seen in the audit, oldest first. */
export interface PolicyVersion extends PolicyRow {
  /** Attempts stamped with this version. */
  readonly attempts: number;
  /** ISO 8601: first and last attempt stamped with it (null when none was). */
  readonly firstUsedAt: string | null;
  readonly lastUsedAt: string | null;
}

export type TimelineEntry =
  | ({ readonly type: 'attempt'; readonly at: string } & StoredAttempt)
  | ({ readonly type: 'policy-change'; readonly at: string } & StoredPolicyChange);

/** See AuditReader.lastPolicies. */
export interface LastPolicy {
  readonly sha256: string;
  /** When that version was fetched (ms since epoch). */
  readonly at: number;
  /** The run whose row or change it comes from (null: from the policy row alone). */
  readonly runId: string | null;
  /** That run had the host under override (an overridden row, or a wait for the override interval). */
  readonly overridden: boolean;
}

/** See AuditReader.lastBackoffs. */
export interface LastBackoff {
  /** When the 429/503 response ended (ms since epoch). */
  readonly endedAt: number;
  readonly status: number;
  /** Its Retry-After header as sent (unparsed); undefined when it had none. */
  readonly retryAfter: string | undefined;
  readonly runId: string;
}

export interface AuditReader {
  /** The files read (base names). */
  readonly files: readonly string[];
  /** What could not be read, one sentence each for a person: a write-ahead log left unmerged
   *  on read-only media, whose rows are then missing. Empty when everything was read. */
  readonly notes: readonly string[];
  runs(): RunSummary[];
  attempts(filter?: AttemptFilter): StoredAttempt[];
  /** Blocked attempts, with their deciding rule (`ruleLine`, `rulePattern`) and policy stamp. */
  blocked(filter?: Omit<AttemptFilter, 'outcome'>): StoredAttempt[];
  hosts(): HostSummary[];
  /** Every stored policy text (optionally one origin's), oldest first. */
  policies(origin?: string): PolicyRow[];
  policy(sha256: string): PolicyRow | undefined;
  /** The versions of one host's (or origin's) robots.txt, oldest first, with their use. */
  policyVersions(hostOrOrigin: string): PolicyVersion[];
  policyChanges(hostOrOrigin?: string): StoredPolicyChange[];
  /** Attempts and policy changes of one host in time order. */
  timeline(host: string): TimelineEntry[];
  /** Final attempt rows per outcome (one per URL settled), optionally for one run. */
  outcomeCounts(runId?: string): Partial<Record<AttemptOutcome, number>>;
  /** URLs settled by a final row (what `--resume` skips); a URL blocked only because its
   *  robots.txt was unreachable (§2.3.1.4) is not settled, and is tried again. */
  doneUrls(): Set<string>;
  /** Redirect targets (from final 3xx rows) that no final row settles yet: what `--resume`
   *  schedules again, with the URL that redirected there. */
  pendingRedirects(): { url: string; parentUrl: string; depth: number }[];
  /** Per host (`URL.host`): when the last request actually sent to it ended (ms since epoch),
   *  and the interval (ms) that applied before its latest request that had one (null if none):
   *  what a later run needs to keep the host's politeness across a restart. */
  lastSent(): Map<string, { endedAt: number; intervalMs: number | null }>;
  /** Per host (`URL.host`): the robots.txt version it was last known under (the stamp of its
   *  latest row, or a later fetch no row went by yet): the Crawl-delay an earlier run kept. */
  lastPolicies(): Map<string, LastPolicy>;
  /** Per host (`URL.host`): its latest response answered 429 or 503 (TDMRep reads aside), with
   *  its Retry-After: the back-off an earlier run was under, which a later run must keep too. */
  lastBackoffs(): Map<string, LastBackoff>;
  /** Hosts a run may have sent to: those of its rows and policy changes, and the origins of
   *  policy bodies first fetched after it started. */
  runHosts(runId: string): Set<string>;
  close(): void;
}
