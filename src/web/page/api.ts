// The JSON the audit API answers (src/web/server.ts builds it; src/web/page/audit.ts reads it).
import type { PolicyChangeRow } from '../../audit/types.js';
import type { BlockedEntry, HostStats, NotUrlLine, PolicyVersion, RunSummary, SentEntry, Totals } from '../../report/crawl-record.js';

/** GET /api/audit */
export interface AuditIndex {
  /** The DIR as given to `serve` (shown, never used to build paths from requests). */
  readonly dir: string;
  readonly runs: readonly RunSummary[];
}

/** GET /api/audit/hosts?run=ID&q=TEXT */
export interface AuditHosts {
  readonly totals: Totals;
  /** Hosts whose name contains `q`, at most 1000 (the busiest when there are more). */
  readonly hosts: readonly HostStats[];
  /** Matching hosts left out of `hosts`. */
  readonly hostsOmitted: number;
  /** Lines of the URL list that were not URLs (they name no host; `q` does not narrow them), at most 1000. */
  readonly notUrls: readonly NotUrlLine[];
  /** Such lines left out of `notUrls`. */
  readonly notUrlsOmitted: number;
}

/** GET /api/audit/host?host=H&run=ID */
export interface AuditHost {
  readonly host: string;
  /** Oldest first. */
  readonly versions: readonly PolicyVersion[];
  /** Oldest first. */
  readonly changes: readonly PolicyChangeRow[];
  readonly blocked: readonly BlockedEntry[];
  /** Blocked URLs left out of `blocked` (it is capped). */
  readonly blockedOmitted: number;
  /** The requests sent to the host (fetched, overridden, error), in start order, capped. */
  readonly sent: readonly SentEntry[];
  readonly sentOmitted: number;
}

/** What every API error answers. */
export interface ApiError {
  readonly error: string;
}
