// A Crawlee run in the same audit as `robots-gate crawl`: a run row, one attempt row per request
// (each redirect hop, each skip, each blocked browser subresource), stamped with the policy in
// force at that moment, and every robots.txt text the gate loads, kept by sha256 so that
// `robots-gate audit --verify` can re-decide each stamp from it.
import { randomUUID } from 'node:crypto';
import type { AttemptOutcome, AttemptRow, AuditSink } from '../audit/types.js';
import type { RobotsGate } from '../gate/gate.js';
import type { Decision, PolicyChange } from '../gate/types.js';
import type { PolicyRecord } from '../stores/types.js';
import { policySnapshot } from '../gate/policy-record.js';
import { decisionStamp } from '../audit/stamp.js';

/** One attempt as the adapter knows it. Times in ms since epoch. */
export interface Attempt {
  url: string;
  startMs: number;
  endMs: number;
  outcome: AttemptOutcome;
  decision: Decision | null;
  /** Default: the decision's reason. */
  reason?: string;
  status?: number | null;
  bytes?: number | null;
  kind?: AttemptRow['kind'];
  parentUrl?: string | null;
  waitReason?: string | null;
  intervalMs?: number | null;
  error?: string | null;
  location?: string | null;
  /** Retry count + 1 (Crawlee's `request.retryCount`). */
  attempt?: number;
  final: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Writes a run's rows to `sink`. A sink that fails stops being written to, and `error` says why:
 *  the crawl goes on (Crawlee owns it), the audit is reported incomplete at `end`. */
export class Attempts {
  readonly runId: string;
  error: Error | null = null;
  private readonly counts: Record<string, number> = {};
  private readonly detach: () => void;

  constructor(
    private readonly sink: AuditSink,
    gate: RobotsGate,
    run: { runId?: string; crawler: string },
  ) {
    this.runId = run.runId ?? `crawlee-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
    const onPolicy = (r: PolicyRecord) => this.guard(() => this.policy(r));
    const onChange = (c: PolicyChange) =>
      this.guard(() => this.sink.recordPolicyChange({ runId: this.runId, origin: c.origin, oldSha256: c.oldSha256, newSha256: c.newSha256, at: c.at }));
    gate.on('policy', onPolicy);
    gate.on('policy-change', onChange);
    this.detach = () => {
      gate.off('policy', onPolicy);
      gate.off('policy-change', onChange);
    };
    this.guard(() =>
      this.sink.recordRun?.({
        runId: this.runId,
        startedAt: new Date().toISOString(),
        userAgent: gate.userAgent,
        options: { via: 'robots-gate/crawlee', crawler: run.crawler },
        resumeOf: null,
        worker: null,
      }),
    );
  }

  record(a: Attempt): void {
    const d = a.decision;
    const row: AttemptRow = {
      runId: this.runId,
      url: a.url,
      host: hostOf(a.url),
      startedAt: iso(a.startMs),
      endedAt: iso(a.endMs),
      outcome: a.outcome,
      status: a.status ?? null,
      bytes: a.bytes ?? null,
      contentSha256: null,
      savedPath: null,
      ...decisionStamp(d),
      reason: a.reason ?? d?.reason ?? '',
      parentUrl: a.parentUrl ?? null,
      kind: a.kind ?? 'page',
      waitReason: a.waitReason ?? null,
      intervalMs: a.intervalMs ?? null,
      error: a.error ?? null,
      attempt: a.attempt ?? 1,
      final: a.final,
      location: a.location ?? null,
      headers: null,
    };
    this.guard(() => this.sink.recordAttempt(row));
    if (a.final) this.counts[a.outcome] = (this.counts[a.outcome] ?? 0) + 1;
  }

  /** Writes the run's end row and stops listening to the gate. */
  end(status: 'completed' | 'interrupted' | 'failed', error: unknown = null): void {
    this.detach();
    this.guard(() =>
      this.sink.recordRunEnd?.({
        runId: this.runId,
        endedAt: new Date().toISOString(),
        status,
        counts: { ...this.counts },
        error: error === null ? (this.error?.message ?? null) : String((error as Error)?.message ?? error),
      }),
    );
  }

  private policy(r: PolicyRecord): void {
    const snapshot = policySnapshot(r);
    if (snapshot) this.sink.recordPolicy(snapshot);
  }

  private guard(fn: () => void): void {
    if (this.error) return;
    try {
      fn();
    } catch (err) {
      this.error = err instanceof Error ? err : new Error(String(err));
    }
  }
}
