// Sends every audit row to several sinks (SQLite and `--audit-jsonl` together).
import type { AttemptRow, AuditSink, PolicyChangeRow, PolicyRow, RunEndRow, RunRow } from './types.js';

/** Writes to each sink in order; the first failure is thrown (later sinks do not get the row). */
export class TeeAuditSink implements AuditSink {
  constructor(private readonly sinks: readonly AuditSink[]) {}
  recordAttempt(row: AttemptRow): void {
    for (const s of this.sinks) s.recordAttempt(row);
  }
  recordPolicy(row: PolicyRow): void {
    for (const s of this.sinks) s.recordPolicy(row);
  }
  recordPolicyChange(row: PolicyChangeRow): void {
    for (const s of this.sinks) s.recordPolicyChange(row);
  }
  recordRun(row: RunRow): void {
    for (const s of this.sinks) s.recordRun?.(row);
  }
  recordRunEnd(row: RunEndRow): void {
    for (const s of this.sinks) s.recordRunEnd?.(row);
  }
  flush(host?: string): void {
    for (const s of this.sinks) s.flush?.(host);
  }
  close(): void {
    for (const s of this.sinks) s.close();
  }
}
