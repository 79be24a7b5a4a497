// The default audit sink: one SQLite file (better-sqlite3, WAL). By default each row is inserted when
// the thing happens, in its own implicit transaction, so a process killed with SIGKILL loses only
// the attempts that were still in flight; WAL keeps committed rows through a process crash.
//
// With `batch`, rows wait in memory and are committed together, in one transaction, by `flush()`: a
// crawl calls it before it sends each request, so every row recorded before a request is durable
// before that request leaves (the crash promise), and a fast crawl commits the rows of many finished
// requests at once (one transaction per row was 11.5 % of a 2,000-host crawl, one per event-loop
// turn still 8 %). Rows are also committed BATCH_MS after the first of them was recorded, once
// BATCH_ROWS are pending, and on close: a process killed meanwhile loses at most those rows, each
// of a request whose host has had no request since (--resume sends those again).
import fs from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { auditWriteError } from './errors.js';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';
import type { AttemptRow, AuditSink, PolicyChangeRow, PolicyRow, RunEndRow, RunRow } from './types.js';
import { verdictJson } from '../usage/verdict.js';

type Statement = Database.Statement;

export interface SqliteAuditSinkOptions {
  /** Commit rows in batches at flush() (and BATCH_MS after the first pending row, or at BATCH_ROWS
   *  pending) instead of one by one. */
  batch?: boolean;
}

/** A pending row is committed at most this long (ms) after it was recorded, flush() or not. */
export const BATCH_MS = 100;
/** This many pending rows are committed at once, flush() or not. */
const BATCH_ROWS = 1_000;

/** Appends audit rows to a SQLite file (created if missing, with its folder; an existing audit is appended to).
 *  @throws AuditWriteError (code `ERR_AUDIT_WRITE`) when the file cannot be opened or written. */
/** The host of an origin as attempt rows name it (URL.hostname). */
function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

export class SqliteAuditSink implements AuditSink {
  private readonly db: Database.Database;
  private readonly insertAttempt: Statement;
  private readonly insertPolicy: Statement;
  private readonly insertChange: Statement;
  private readonly insertFetch: Statement;
  private readonly insertRun: Statement;
  private readonly insertRunEnd: Statement;
  private closed = false;
  private readonly batch: boolean;
  private pending: { stmt: Statement; args: unknown[] }[] = [];
  /** Hosts with a pending row: flush(host) for any other host has nothing to make durable. */
  private pendingHosts = new Set<string>();
  private scheduled: NodeJS.Timeout | undefined;
  /** A failed batch commit from the timed flush, thrown at the next call (never from a timer). */
  private failure: unknown;
  private readonly commit: (rows: { stmt: Statement; args: unknown[] }[]) => void;

  constructor(readonly path: string, options: SqliteAuditSinkOptions = {}) {
    this.batch = options.batch === true;
    try {
      // Its folder too, as `robots-gate crawl --out` makes its own: README's snippets name
      // `out/audit.sqlite` before anything exists, and failed there with SQLite's "directory does not exist".
      if (path !== ':memory:') fs.mkdirSync(dirname(path), { recursive: true });
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
      // Not INSERT OR IGNORE: the table's append-only trigger refuses any insert that meets a key.
      this.db.prepare('INSERT INTO meta (key, value) SELECT @key, @value WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = @key)').run({ key: 'schema_version', value: String(SCHEMA_VERSION) });
      this.insertAttempt = this.db.prepare(`INSERT INTO attempts (run_id, url, host, started_at, ended_at, outcome, status,
        bytes, content_sha256, saved_path, policy_sha256, robots_url, policy_fetched_at, policy_status, reason, rule_line,
        rule_pattern, parent_url, kind, wait_reason, interval_ms, error, attempt, final, location, headers, truncated, sitemap, usage)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      // Idempotent on sha256 without a conflict clause: the schema refuses any insert that meets
      // an existing key, so one already there is skipped here instead.
      this.insertPolicy = this.db.prepare(`INSERT INTO policies (sha256, origin, robots_url, final_url, status,
        fetched_at, sitemaps, body) SELECT @sha256, @origin, @robotsUrl, @finalUrl, @status, @fetchedAt, @sitemaps, @body
        WHERE NOT EXISTS (SELECT 1 FROM policies WHERE sha256 = @sha256)`);
      // Every fetch of every origin, the text's hash beside it: `policies` keeps a text once, under
      // the first origin that served it, and a resumed run must know when each host's robots.txt
      // was last requested (hosts serving one default file are many).
      this.insertFetch = this.db.prepare('INSERT INTO policy_fetches (origin, sha256, fetched_at) VALUES (?, ?, ?)');
      this.insertChange = this.db.prepare(
        'INSERT INTO policy_changes (run_id, origin, old_sha256, new_sha256, at) VALUES (?, ?, ?, ?, ?)',
      );
      this.insertRun = this.db.prepare(
        'INSERT INTO runs (run_id, started_at, user_agent, options, resume_of, worker) VALUES (?, ?, ?, ?, ?, ?)',
      );
      this.insertRunEnd = this.db.prepare(
        'INSERT INTO run_ends (run_id, ended_at, status, counts, error) VALUES (?, ?, ?, ?, ?)',
      );
      this.commit = this.db.transaction((rows: { stmt: Statement; args: unknown[] }[]) => {
        for (const r of rows) r.stmt.run(...r.args);
      });
    } catch (err) {
      throw auditWriteError(err, path, 'open the audit database');
    }
  }

  recordAttempt(row: AttemptRow): void {
    if (this.batch) this.pendingHosts.add(row.host);
    // Positional, in the columns' order: binding 29 named parameters from an object cost a third
    // of each row's insert (13 µs of 44 in a batch of 16).
    this.write(
      this.insertAttempt,
      row.runId,
      row.url,
      row.host,
      row.startedAt,
      row.endedAt,
      row.outcome,
      row.status,
      row.bytes,
      row.contentSha256,
      row.savedPath,
      row.policySha256,
      row.robotsUrl,
      row.policyFetchedAt,
      row.policyStatus === null ? null : String(row.policyStatus),
      row.reason,
      row.ruleLine,
      row.rulePattern,
      row.parentUrl,
      row.kind,
      row.waitReason,
      row.intervalMs,
      row.error,
      row.attempt ?? 1,
      row.final ? 1 : 0,
      row.location ?? null,
      row.headers ? JSON.stringify(row.headers) : null,
      row.truncated ? 1 : 0,
      row.sitemap ? JSON.stringify(row.sitemap) : null,
      row.usage ? verdictJson(row.usage) : null,
    );
  }

  recordPolicy(row: PolicyRow): void {
    if (this.batch) this.pendingHosts.add(hostOf(row.origin));
    this.write(this.insertPolicy, {
        sha256: row.sha256,
        origin: row.origin,
        robotsUrl: row.robotsUrl,
        finalUrl: row.finalUrl,
        status: String(row.status),
        fetchedAt: row.fetchedAt,
        sitemaps: JSON.stringify(row.sitemaps),
        body: row.body,
      });
    this.write(this.insertFetch, row.origin, row.sha256, row.fetchedAt);
  }

  recordPolicyChange(row: PolicyChangeRow): void {
    if (this.batch) this.pendingHosts.add(hostOf(row.origin));
    this.write(this.insertChange, row.runId, row.origin, row.oldSha256, row.newSha256, row.at);
  }

  recordRun(row: RunRow): void {
    this.write(this.insertRun, row.runId, row.startedAt, row.userAgent, JSON.stringify(row.options), row.resumeOf, row.worker);
  }

  recordRunEnd(row: RunEndRow): void {
    this.write(this.insertRunEnd, row.runId, row.endedAt, row.status, JSON.stringify(row.counts), row.error);
  }

  /**
   * Commit every row recorded so far, in one transaction (nothing to do without `batch`).
   * @param host a request to this host is about to be sent: commit only if a row of this host is
   *   pending (then all pending rows go, in order), so rows of many hosts share a transaction.
   * @throws AuditWriteError when the commit fails (the rows stay pending), or when a timed commit
   *   failed since the last call.
   */
  flush(host?: string): void {
    this.throwFailure();
    if (this.pending.length === 0) return;
    if (host !== undefined && !this.pendingHosts.has(host)) return;
    const rows = this.pending;
    try {
      this.commit(rows);
    } catch (err) {
      throw auditWriteError(err, this.path, 'write the audit to');
    }
    this.pending = [];
    this.pendingHosts.clear();
    if (this.scheduled) clearTimeout(this.scheduled);
    this.scheduled = undefined;
  }

  close(): void {
    if (this.closed) return;
    if (this.scheduled) clearTimeout(this.scheduled);
    this.scheduled = undefined;
    try {
      this.flush();
    } finally {
      this.closeDb();
    }
  }

  private closeDb(): void {
    this.closed = true;
    try {
      this.db.close();
    } catch {
      // Closing after a write failure (e.g. disk full) may fail again; the rows committed
      // before are in the WAL and the database is consistent either way.
    }
  }

  private write(stmt: Statement, ...args: unknown[]): void {
    if (!this.batch) {
      try {
        stmt.run(...args);
      } catch (err) {
        throw auditWriteError(err, this.path, 'write the audit to');
      }
      return;
    }
    this.throwFailure();
    this.pending.push({ stmt, args });
    if (this.pending.length >= BATCH_ROWS) return this.flush();
    this.scheduled ??= setTimeout(() => {
      this.scheduled = undefined;
      try {
        this.flush();
      } catch (err) {
        this.failure = err;
      }
    }, BATCH_MS);
  }

  private throwFailure(): void {
    if (this.failure === undefined) return;
    const err = this.failure;
    this.failure = undefined;
    throw err;
  }
}
