// Reads a crawl's audit DIR into the CrawlRecord the report and the audit browser show.
import { openAudit } from '../audit/reader.js';
import type { PolicyRow } from '../audit/types.js';
import type { CrawlRecord } from './crawl-record.js';

/**
 * Every attempt, policy text and policy change in `dir` (all `audit*.sqlite` files, as one).
 * @throws AuditReadError (code `ERR_AUDIT_READ`) when DIR holds no audit or one cannot be read.
 */
export function loadCrawlRecord(dir: string): CrawlRecord {
  const audit = openAudit(dir);
  try {
    const attempts = audit.attempts();
    // Per host: the reader keys policy texts by sha256, and two origins can serve the same body;
    // asking per host keeps each origin's own versions.
    const policies: PolicyRow[] = [];
    for (const h of audit.hosts()) policies.push(...audit.policies(h.host));
    return { attempts, policies, changes: audit.policyChanges() };
  } finally {
    audit.close();
  }
}
