// Reads a crawl's audit DIR into the CrawlRecord the report and the audit browser show.
import { openAudit } from '../audit/reader.js';
import type { CrawlRecord } from './crawl-record.js';

/**
 * Every attempt, policy text and policy change in `dir` (all `audit*.sqlite` files, as one).
 * @throws AuditReadError (code `ERR_AUDIT_READ`) when DIR holds no audit or one cannot be read.
 */
export function loadCrawlRecord(dir: string): CrawlRecord {
  const audit = openAudit(dir);
  try {
    // Policies by sha256, one query: which hosts each governed comes from the attempts' stamps.
    return { attempts: audit.attempts(), policies: audit.policies(), changes: audit.policyChanges(), notes: audit.notes };
  } finally {
    audit.close();
  }
}
