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
  /** The file ends inside a line (a run stopped by a full disk, or this one's write that failed):
   *  the next row starts on a line of its own, so the torn one is lost alone, not the row after it. */
  private torn = false;

  constructor(readonly path: string) {
    try {
      // a+: read back the last byte (endsInsideLine); writes still go to the end.
      this.fd = fs.openSync(path, 'a+');
    } catch (err) {
      throw auditWriteError(err, path, 'open the JSONL audit');
    }
    this.torn = endsInsideLine(this.fd);
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
    const buf = Buffer.from((this.torn ? '\n' : '') + JSON.stringify(obj) + '\n');
    let off = 0;
    try {
      while (off < buf.length) off += fs.writeSync(this.fd, buf, off);
      this.torn = false;
    } catch (err) {
      if (off > 0) this.torn = true;
      throw auditWriteError(err, this.path, 'write the JSONL audit to');
    }
  }
}

/** Does the regular file open at `fd` end without a newline? (Not a FIFO or a device: nothing to read back.) */
function endsInsideLine(fd: number): boolean {
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size === 0) return false;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, st.size - 1);
    return last[0] !== 10;
  } catch {
    // Unreadable as it stands: assume whole lines.
    return false;
  }
}
