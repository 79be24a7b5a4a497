// `robots-gate audit DIR --usage` and `--export jsonl`: the usage verdicts beside the access
// stamps, as a list of documents by verdict and as the per-document record a dataset keeps.
import type { AuditReader, StoredAttempt } from '../audit/reader.js';
import { PURPOSES } from '../usage/index.js';
import { documentFate } from '../report/usage-section.js';

const out = (s: string) => process.stdout.write(s + '\n');

/** Rows that carry a verdict: documents that answered, and URLs refused as usage-reserved. */
function withUsage(reader: AuditReader): StoredAttempt[] {
  return reader.attempts().filter((a) => a.usage != null && a.kind !== 'tdmrep');
}

/** `--usage`: every document (or refused URL) with its verdict per purpose and the deciding signals. */
export function printUsage(reader: AuditReader, json: boolean, limit: number): void {
  const rows = withUsage(reader);
  if (json) {
    for (const r of rows) out(JSON.stringify({ url: r.url, outcome: r.outcome, reason: r.reason, document: documentFate(r), savedPath: r.savedPath, at: r.startedAt, usage: r.usage }));
    return;
  }
  if (rows.length === 0) {
    out('no usage verdicts recorded (rows written before usage was recorded have none)');
    return;
  }
  for (const p of PURPOSES) {
    const reserved = rows.filter((r) => r.usage!.purposes[p].verdict === 'reserved');
    const allowed = rows.filter((r) => r.usage!.purposes[p].verdict === 'allowed');
    out(`${p}: ${reserved.length} reserved, ${allowed.length} allowed, ${rows.length - reserved.length - allowed.length} unknown`);
    for (const r of reserved.slice(0, limit)) {
      const by = r.usage!.purposes[p].signals.map((s) => `${s.kind}${s.line ? ` line ${s.line}` : ''} "${s.value}"`).join('; ');
      out(`  reserved  ${r.url}  ${documentFate(r)}  by ${by}`);
    }
    if (reserved.length > limit) out(`  … and ${reserved.length - limit} more`);
  }
}

/** `--export jsonl`: one line per saved document: URL, content hash, access stamp, usage verdict. */
export function exportJsonl(reader: AuditReader): number {
  let n = 0;
  for (const r of reader.attempts()) {
    if (r.savedPath === null || r.contentSha256 === null) continue;
    out(
      JSON.stringify({
        url: r.url,
        contentSha256: r.contentSha256,
        savedPath: r.savedPath,
        fetchedAt: r.startedAt,
        status: r.status,
        access: {
          reason: r.reason,
          robotsUrl: r.robotsUrl,
          policySha256: r.policySha256,
          policyFetchedAt: r.policyFetchedAt,
          policyStatus: r.policyStatus,
          ruleLine: r.ruleLine,
          rulePattern: r.rulePattern,
        },
        usage: r.usage ?? null,
        runId: r.runId,
      }),
    );
    n++;
  }
  return n;
}
