export type {
  AttemptOutcome,
  AttemptRow,
  PolicyRow,
  PolicyChangeRow,
  RunRow,
  RunEndRow,
  AuditSink,
  SitemapRead,
  SitemapClaims,
} from './types.js';
export { SqliteAuditSink } from './sqlite-sink.js';
export { JsonlAuditSink } from './jsonl-sink.js';
export { TeeAuditSink } from './tee-sink.js';
export { AuditWriteError } from './errors.js';
export {
  openAudit,
  auditFiles,
  AuditReadError,
  type AuditReader,
  type AttemptFilter,
  type StoredAttempt,
  type StoredPolicyChange,
  type RunSummary,
  type HostSummary,
  type PolicyVersion,
  type TimelineEntry,
} from './reader.js';
