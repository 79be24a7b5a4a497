// An AuditSink that keeps attempt rows in memory, for tests that drive CrawlJob directly and
// read the rows it wrote (the real sinks are tested on their own in test/audit).
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
