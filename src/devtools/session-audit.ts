// A browsing session as an audit (`robots-gate browser --out DIR`): one run, one attempt row per
// decision the endpoint's gate made (kind `navigation` for a frame's navigation and each of its
// redirect hops, `subresource` for everything else), the policy stamp of each, and every
// robots.txt text by sha256, so `robots-gate audit` and `report` read it as they read a crawl.
// Rows are written when the decision is made: the endpoint does not read responses, so an
// allowed row's status is null and its outcome `fetched` means "let through".
import type { AttemptRow, AuditSink } from '../audit/types.js';
import type { PolicyChange } from '../gate/types.js';
import type { PolicyRecord } from '../stores/types.js';
import type { TargetRequest } from './target-watch.js';
import { policySnapshot } from '../gate/policy-record.js';

/** What the recorder listens to on the gate: a `RobotsGate` fits. */
export interface AuditedGate {
  on(event: 'policy', fn: (r: PolicyRecord) => void): unknown;
  on(event: 'policy-change', fn: (c: PolicyChange) => void): unknown;
  off(event: 'policy', fn: (r: PolicyRecord) => void): unknown;
  off(event: 'policy-change', fn: (c: PolicyChange) => void): unknown;
  readonly userAgent: string;
}

export class SessionAudit {
  private readonly counts: Record<string, number> = {};
  private readonly onPolicy = (r: PolicyRecord): void => this.policy(r);
  private readonly onChange = (c: PolicyChange): void =>
    this.sink.recordPolicyChange({ runId: this.runId, origin: c.origin, oldSha256: c.oldSha256, newSha256: c.newSha256, at: c.at });

  /** Writes the run row. @throws AuditWriteError */
  constructor(
    private readonly sink: AuditSink,
    private readonly gate: AuditedGate,
    readonly runId: string,
    options: Record<string, unknown>,
  ) {
    sink.recordRun?.({ runId, startedAt: new Date().toISOString(), userAgent: gate.userAgent, options, resumeOf: null, worker: null });
    gate.on('policy', this.onPolicy);
    gate.on('policy-change', this.onChange);
  }

  /** One decision as a row. @throws AuditWriteError */
  record(e: TargetRequest): void {
    const d = e.decision;
    const sent = d?.allowed === true;
    const outcome = !sent ? 'blocked' : d.overridden ? 'overridden' : 'fetched';
    this.counts[outcome] = (this.counts[outcome] ?? 0) + 1;
    const row: AttemptRow = {
      runId: this.runId,
      url: e.url,
      host: hostOf(e.url),
      startedAt: e.at,
      endedAt: e.at,
      outcome,
      status: null,
      bytes: null,
      contentSha256: null,
      savedPath: null,
      policySha256: d?.policy.sha256 ?? null,
      robotsUrl: d?.policy.robotsUrl ?? null,
      policyFetchedAt: d?.policy.fetchedAt ?? null,
      policyStatus: d?.policy.status ?? null,
      reason: d?.reason ?? 'gate-error',
      ruleLine: d?.rule?.line ?? null,
      rulePattern: d?.rule?.pattern ?? null,
      // A redirect hop's parent is the URL that redirected; a request's, its frame's document.
      parentUrl: e.redirectedFrom ?? (e.frameUrl || null),
      kind: e.isNavigation ? 'navigation' : 'subresource',
      waitReason: null,
      intervalMs: null,
      error: e.error ? e.error.message : null,
      final: true,
    };
    this.sink.recordAttempt(row);
  }

  private policy(r: PolicyRecord): void {
    const snapshot = policySnapshot(r);
    if (snapshot) this.sink.recordPolicy(snapshot);
  }

  /** Writes the run's end and closes the sink. */
  close(status: 'completed' | 'interrupted' | 'failed', error: string | null = null): void {
    this.gate.off('policy', this.onPolicy);
    this.gate.off('policy-change', this.onChange);
    try {
      this.sink.recordRunEnd?.({ runId: this.runId, endedAt: new Date().toISOString(), status, counts: { ...this.counts }, error });
    } finally {
      this.sink.close();
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
