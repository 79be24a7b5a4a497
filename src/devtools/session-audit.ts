// A browsing session as an audit (`robots-gate browser --out DIR`): one run, one attempt row per
// decision the endpoint's gate made (kind `navigation` for a frame's navigation and each of its
// redirect hops, `subresource` for everything else), the policy stamp of each, and every
// robots.txt text by sha256, so `robots-gate audit` and `report` read it as they read a crawl.
// A blocked row is written at the decision; a navigation's row starts when it was let go, after its
// host's slot wait, with that wait's reason and interval. An allowed one (outcome `fetched`) waits
// for its response (`response()`, from the endpoint's `responses` option) to carry the HTTP status,
// or the browser's error text when it failed there; one whose response never comes (a target
// without Network, a request cancelled unseen) is written without a status after `waitMs`, or at
// close.
import type { AttemptRow, AuditSink } from '../audit/types.js';
import type { PolicyChange } from '../gate/types.js';
import type { PolicyRecord } from '../stores/types.js';
import type { ResponseSeen } from './responses.js';
import type { TargetRequest } from './target-watch.js';
import { policySnapshot } from '../gate/policy-record.js';
import { decisionStamp } from '../audit/stamp.js';

/** What the recorder listens to on the gate: a `RobotsGate` fits. */
export interface AuditedGate {
  on(event: 'policy', fn: (r: PolicyRecord) => void): unknown;
  on(event: 'policy-change', fn: (c: PolicyChange) => void): unknown;
  off(event: 'policy', fn: (r: PolicyRecord) => void): unknown;
  off(event: 'policy-change', fn: (c: PolicyChange) => void): unknown;
  readonly userAgent: string;
}

/** requestId + URL: a redirect chain's hops share a requestId. */
const keyOf = (requestId: string, url: string): string => `${requestId} ${url}`;

export class SessionAudit {
  private readonly counts: Record<string, number> = {};
  /** Allowed rows waiting for their response, by key, with the time they were decided (ms). */
  private readonly pending = new Map<string, { row: AttemptRow; since: number }>();
  /** The latest unfinished hop of each request (requestId → key), for a failure, which names no URL. */
  private readonly hop = new Map<string, string>();
  /** Responses seen before their row (the root decides some requests after a target's session). */
  private readonly early = new Map<string, ResponseSeen>();
  private readonly sweep: NodeJS.Timeout;
  /** A write the sweep could not make: thrown by the next call, which has a caller to tell. */
  private sweepError: Error | null = null;
  private readonly onPolicy = (r: PolicyRecord): void => this.policy(r);
  private readonly onChange = (c: PolicyChange): void =>
    this.sink.recordPolicyChange({ runId: this.runId, origin: c.origin, oldSha256: c.oldSha256, newSha256: c.newSha256, at: c.at });

  /** Writes the run row. @throws AuditWriteError */
  constructor(
    private readonly sink: AuditSink,
    private readonly gate: AuditedGate,
    readonly runId: string,
    options: Record<string, unknown>,
    /** How long an allowed row waits for its response, in ms. */
    private readonly waitMs = 60_000,
  ) {
    sink.recordRun?.({ runId, startedAt: new Date().toISOString(), userAgent: gate.userAgent, options, resumeOf: null, worker: null });
    gate.on('policy', this.onPolicy);
    gate.on('policy-change', this.onChange);
    this.sweep = setInterval(() => {
      try {
        this.flush(Date.now() - this.waitMs);
      } catch (err) {
        this.sweepError ??= err as Error;
      }
    }, Math.min(this.waitMs, 10_000));
    this.sweep.unref();
  }

  /** One decision as a row. @throws AuditWriteError */
  record(e: TargetRequest): void {
    if (this.sweepError) throw this.sweepError;
    const d = e.decision;
    const sent = d?.allowed === true;
    const outcome = !sent ? 'blocked' : d.overridden ? 'overridden' : 'fetched';
    this.counts[outcome] = (this.counts[outcome] ?? 0) + 1;
    const row: AttemptRow = {
      runId: this.runId,
      url: e.url,
      host: hostOf(e.url),
      // When it was let go: a paced navigation after its host's slot wait, so that the row's gap
      // from the host's previous response is the one the server saw (stamped at the decision, the
      // audit showed gaps under the interval). The policy stamp below stays the decision's.
      startedAt: e.sentAt ?? e.at,
      endedAt: e.sentAt ?? e.at,
      outcome,
      status: null,
      bytes: null,
      contentSha256: null,
      savedPath: null,
      ...decisionStamp(d),
      reason: d?.reason ?? 'gate-error',
      // A redirect hop's parent is the URL that redirected; a request's, its frame's document.
      parentUrl: e.redirectedFrom ?? (e.frameUrl || null),
      kind: e.isNavigation ? 'navigation' : 'subresource',
      waitReason: e.wait?.reason ?? null,
      intervalMs: e.wait?.intervalMs ?? null,
      error: e.error ? e.error.message : null,
      final: true,
    };
    const requestId = e.requestId;
    if (!sent || requestId === undefined) return this.sink.recordAttempt(row);
    const key = keyOf(requestId, e.url);
    const seen = this.early.get(key);
    if (seen) {
      this.early.delete(key);
      return this.write(row, seen);
    }
    this.pending.set(key, { row, since: Date.now() });
    this.hop.set(requestId, key);
  }

  /** What an allowed request got: its row is written with the status. @throws AuditWriteError */
  response(r: ResponseSeen): void {
    if (this.sweepError) throw this.sweepError;
    const key = r.status === null ? this.hop.get(r.requestId) : keyOf(r.requestId, r.url);
    const waiting = key === undefined ? undefined : this.pending.get(key);
    if (!waiting) {
      if (r.status !== null) {
        this.early.set(keyOf(r.requestId, r.url), r);
        if (this.early.size > 1_000) this.early.delete(this.early.keys().next().value!);
      }
      return;
    }
    this.pending.delete(key!);
    if (this.hop.get(r.requestId) === key) this.hop.delete(r.requestId);
    this.write(waiting.row, r);
  }

  private write(row: AttemptRow, r: ResponseSeen | null): void {
    this.sink.recordAttempt(r ? { ...row, endedAt: r.at, status: r.status, error: r.error } : row);
  }

  /** Writes, without a status, the rows decided before `before` (ms) that still wait. */
  private flush(before = Infinity): void {
    for (const [key, { row, since }] of this.pending) {
      if (since > before) continue;
      this.pending.delete(key);
      this.write(row, null);
    }
    if (this.pending.size === 0) this.hop.clear();
  }

  private policy(r: PolicyRecord): void {
    const snapshot = policySnapshot(r);
    if (snapshot) this.sink.recordPolicy(snapshot);
  }

  /** Writes the run's end and closes the sink. */
  close(status: 'completed' | 'interrupted' | 'failed', error: string | null = null): void {
    this.gate.off('policy', this.onPolicy);
    this.gate.off('policy-change', this.onChange);
    clearInterval(this.sweep);
    try {
      this.flush();
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
