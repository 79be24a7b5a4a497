// Streams audit rows as JSON lines (`--audit-jsonl FILE`): one object a line, `type` first.
// Lines are written synchronously, so what a killed process wrote is on disk, whole.
import fs from 'node:fs';
import { auditWriteError } from './errors.js';
import type { AttemptRow, AuditSink, PolicyChangeRow, PolicyRow, RunEndRow, RunRow } from './types.js';

/** Appends audit rows to a file as JSON lines (`-` for stdout is not accepted: stdout carries
 *  results). @throws AuditWriteError when the file cannot be opened or written. */
export class JsonlAuditSink implements AuditSink {
  private fd: number | undefined;
  private readonly policies = new Set<string>();

  constructor(readonly path: string) {
    try {
      this.fd = fs.openSync(path, 'a');
    } catch (err) {
      throw auditWriteError(err, path, 'open the JSONL audit');
    }
  }

  recordAttempt(row: AttemptRow): void {
    this.line({ type: 'attempt', ...row });
  }
  recordPolicy(row: PolicyRow): void {
    if (this.policies.has(row.sha256)) return;
    this.line({ type: 'policy', ...row });
    this.policies.add(row.sha256);
  }
  recordPolicyChange(row: PolicyChangeRow): void {
    this.line({ type: 'policy-change', ...row });
  }
  recordRun(row: RunRow): void {
    this.line({ type: 'run', ...row });
  }
  recordRunEnd(row: RunEndRow): void {
    this.line({ type: 'run-end', ...row });
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fs.closeSync(fd);
    } catch {
      // Nothing buffered: every line was written synchronously.
    }
  }

  private line(obj: object): void {
    if (this.fd === undefined) return;
    const buf = Buffer.from(JSON.stringify(obj) + '\n');
    try {
      let off = 0;
      while (off < buf.length) off += fs.writeSync(this.fd, buf, off);
    } catch (err) {
      throw auditWriteError(err, this.path, 'write the JSONL audit to');
    }
  }
}
