// The default audit sink: one SQLite file (better-sqlite3, WAL). Each row is inserted when the
// thing happens, in its own implicit transaction, so a process killed with SIGKILL loses only
// the attempts that were still in flight; WAL keeps committed rows through a process crash.
import Database from 'better-sqlite3';
import { auditWriteError } from './errors.js';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';
import type { AttemptRow, AuditSink, PolicyChangeRow, PolicyRow, RunEndRow, RunRow } from './types.js';

type Statement = Database.Statement;

/** Appends audit rows to a SQLite file (created if missing; an existing audit is appended to).
 *  @throws AuditWriteError (code `ERR_AUDIT_WRITE`) when the file cannot be opened or written. */
export class SqliteAuditSink implements AuditSink {
  private readonly db: Database.Database;
  private readonly insertAttempt: Statement;
  private readonly insertPolicy: Statement;
  private readonly insertChange: Statement;
  private readonly insertRun: Statement;
  private readonly insertRunEnd: Statement;
  private closed = false;

  constructor(readonly path: string) {
    try {
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a committed row survives the process dying; only an OS crash or
      // power loss can lose the last transactions.
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('busy_timeout = 5000');
      this.db.exec(SCHEMA);
      // Audits written before `location` existed get the column (adding one rewrites no row).
      const columns = this.db.prepare('PRAGMA table_info(attempts)').all() as { name: string }[];
      for (const [col, type] of [['location', 'TEXT'], ['headers', 'TEXT'], ['truncated', 'INTEGER'], ['sitemap', 'TEXT'], ['usage', 'TEXT']] as const) {
        if (!columns.some((c) => c.name === col)) this.db.exec(`ALTER TABLE attempts ADD COLUMN ${col} ${type}`);
      }
      this.db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
      this.insertAttempt = this.db.prepare(`INSERT INTO attempts (run_id, url, host, started_at, ended_at, outcome, status,
        bytes, content_sha256, saved_path, policy_sha256, robots_url, policy_fetched_at, policy_status, reason, rule_line,
        rule_pattern, parent_url, kind, wait_reason, interval_ms, error, attempt, final, location, headers, truncated, sitemap, usage)
        VALUES (@runId, @url, @host, @startedAt, @endedAt, @outcome, @status, @bytes, @contentSha256, @savedPath,
        @policySha256, @robotsUrl, @policyFetchedAt, @policyStatus, @reason, @ruleLine, @rulePattern, @parentUrl, @kind,
        @waitReason, @intervalMs, @error, @attempt, @final, @location, @headers, @truncated, @sitemap, @usage)`);
      // Idempotent on sha256 without a conflict clause: the schema refuses any insert that meets
      // an existing key, so one already there is skipped here instead.
      this.insertPolicy = this.db.prepare(`INSERT INTO policies (sha256, origin, robots_url, final_url, status,
        fetched_at, sitemaps, body) SELECT @sha256, @origin, @robotsUrl, @finalUrl, @status, @fetchedAt, @sitemaps, @body
        WHERE NOT EXISTS (SELECT 1 FROM policies WHERE sha256 = @sha256)`);
      this.insertChange = this.db.prepare(
        'INSERT INTO policy_changes (run_id, origin, old_sha256, new_sha256, at) VALUES (?, ?, ?, ?, ?)',
      );
      this.insertRun = this.db.prepare(
        'INSERT INTO runs (run_id, started_at, user_agent, options, resume_of, worker) VALUES (?, ?, ?, ?, ?, ?)',
      );
      this.insertRunEnd = this.db.prepare(
        'INSERT INTO run_ends (run_id, ended_at, status, counts, error) VALUES (?, ?, ?, ?, ?)',
      );
    } catch (err) {
      throw auditWriteError(err, path, 'open the audit database');
    }
  }

  recordAttempt(row: AttemptRow): void {
    this.write(() =>
      this.insertAttempt.run({
        ...row,
        policyStatus: row.policyStatus === null ? null : String(row.policyStatus),
        attempt: row.attempt ?? 1,
        final: row.final ? 1 : 0,
        location: row.location ?? null,
        headers: row.headers ? JSON.stringify(row.headers) : null,
        truncated: row.truncated ? 1 : 0,
        sitemap: row.sitemap ? JSON.stringify(row.sitemap) : null,
        usage: row.usage ? JSON.stringify(row.usage) : null,
      }),
    );
  }

  recordPolicy(row: PolicyRow): void {
    this.write(() =>
      this.insertPolicy.run({
        sha256: row.sha256,
        origin: row.origin,
        robotsUrl: row.robotsUrl,
        finalUrl: row.finalUrl,
        status: String(row.status),
        fetchedAt: row.fetchedAt,
        sitemaps: JSON.stringify(row.sitemaps),
        body: row.body,
      }),
    );
  }

  recordPolicyChange(row: PolicyChangeRow): void {
    this.write(() => this.insertChange.run(row.runId, row.origin, row.oldSha256, row.newSha256, row.at));
  }

  recordRun(row: RunRow): void {
    this.write(() =>
      this.insertRun.run(row.runId, row.startedAt, row.userAgent, JSON.stringify(row.options), row.resumeOf, row.worker),
    );
  }

  recordRunEnd(row: RunEndRow): void {
    this.write(() => this.insertRunEnd.run(row.runId, row.endedAt, row.status, JSON.stringify(row.counts), row.error));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.close();
    } catch {
      // Closing after a write failure (e.g. disk full) may fail again; the rows committed
      // before are in the WAL and the database is consistent either way.
    }
  }

  private write(run: () => unknown): void {
    try {
      run();
    } catch (err) {
      throw auditWriteError(err, this.path, 'write the audit to');
    }
  }
}
