// Attempt rows for tests: an AuditSink that keeps them in memory (for tests that drive CrawlJob
// and read what it wrote; the real sinks are tested on their own in test/audit), and one row made
// from defaults, for tests that write audits by hand.
import type { AttemptRow, AuditSink } from '../../src/audit/types.js';

export class AttemptRows implements AuditSink {
  rows: AttemptRow[] = [];
  recordAttempt(r: AttemptRow): void {
    this.rows.push(r);
  }
  recordPolicy(): void {}
  recordPolicyChange(): void {}
  close(): void {}
}

/** A fetched page row of run `r1` on a.test; `over` sets the fields a test cares about. */
export function attemptRow(over: Partial<AttemptRow> = {}): AttemptRow {
  return {
    runId: 'r1',
    url: 'http://a.test/x',
    host: 'a.test',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:00:00.100Z',
    outcome: 'fetched',
    status: 200,
    bytes: 10,
    contentSha256: null,
    savedPath: null,
    policySha256: 'p1',
    robotsUrl: 'http://a.test/robots.txt',
    policyFetchedAt: '2026-01-01T00:00:00.000Z',
    policyStatus: 200,
    reason: 'no-matching-rule',
    ruleLine: null,
    rulePattern: null,
    parentUrl: null,
    kind: 'page',
    waitReason: null,
    intervalMs: null,
    error: null,
    final: true,
    ...over,
  };
}
