// The audit row of one sitemap request: kind `sitemap`, stamped with the policy that decided it
// (the robots.txt of the sitemap's own origin) and naming the robots.txt that advertised it.
import type { AttemptOutcome, AttemptRow } from '../audit/types.js';
import type { SitemapReport } from './types.js';
import { decisionStamp } from '../audit/stamp.js';

/** Problems joined into the row's `error` text at most (the full list is in `sitemap`). */
const MAX_ERROR_CHARS = 1_000;

/** @param interrupted the run was stopped (Ctrl-C) before the sitemap was read whole: its row is
 *  not final, so a `--resume` reads it again instead of replaying what little came. */
export function sitemapRow(r: SitemapReport, runId: string, interrupted = false): AttemptRow {
  const d = r.decision;
  let outcome: AttemptOutcome;
  let reason: string;
  if (r.outcome === 'blocked') {
    outcome = 'blocked';
    reason = d?.reason ?? 'disallowed-by-rule';
  } else if (r.outcome === 'error') {
    outcome = 'error';
    reason = r.limit === 'timeout' ? 'timeout' : r.status !== null ? `http-${r.status}` : 'network-error';
  } else {
    outcome = d?.overridden ? 'overridden' : 'fetched';
    reason = d?.reason ?? 'no-matching-rule';
  }
  const error = r.error ?? (r.problems.length > 0 ? r.problems.join('; ').slice(0, MAX_ERROR_CHARS) : null);
  return {
    runId,
    url: r.url,
    host: new URL(r.url).host,
    startedAt: new Date(r.startedAt).toISOString(),
    endedAt: new Date(r.endedAt).toISOString(),
    outcome,
    status: r.status,
    bytes: r.outcome === 'read' ? r.bytes : null,
    contentSha256: r.sha256,
    savedPath: null,
    ...decisionStamp(d),
    reason,
    parentUrl: r.parentUrl,
    kind: 'sitemap',
    waitReason: r.waitReason,
    intervalMs: r.intervalMs,
    error,
    attempt: 1,
    // A sitemap is read once a run: whatever came of it settles it (no retry storm on a 5xx),
    // unless the run itself stopped it, or the server said to come back later (429, 503: RFC 9110
    // §15.5.30, §15.6.4): a --resume then reads it again instead of replaying it as empty.
    final: !interrupted && r.status !== 429 && r.status !== 503,
    location: null,
    headers: r.headers,
    truncated: r.limit !== null,
    sitemap: {
      format: r.format,
      depth: r.depth,
      advertisedBy: r.advertisedBy,
      urls: r.urls,
      sitemaps: r.sitemaps,
      dropped: r.dropped as Record<string, number>,
      limit: r.limit,
      problems: r.problems,
      gzip: r.gzip,
    },
  };
}
