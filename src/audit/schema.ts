// The audit database schema, shared by the writer and the reader. Append-only: triggers refuse
// UPDATE, DELETE and an insert that would replace a row, so a row once written is the record
// (history is never rewritten).

export const SCHEMA_VERSION = 1;

/** The tables whose rows are never rewritten, each with the test that finds the row an insert
 *  would collide with (a run ends once, so a second end row for it is refused too). The UPDATE and DELETE triggers do not cover `INSERT OR REPLACE`: SQLite
 *  deletes the old row without firing DELETE triggers (unless recursive_triggers is on), so an
 *  insert that meets an existing key or rowid is refused before it happens. In a BEFORE INSERT
 *  trigger an unset rowid reads as -1, which no row written by the sink has. An UPSERT's DO
 *  UPDATE meets the same insert trigger (and the UPDATE one). */
const APPEND_ONLY: Readonly<Record<string, string>> = {
  // The schema version an audit was written under: rewritten, a reader would take rows for another
  // layout's (it alone was open to UPDATE and DELETE).
  meta: 'key = NEW.key OR rowid = NEW.rowid',
  runs: 'run_id = NEW.run_id OR rowid = NEW.rowid',
  run_ends: 'run_id = NEW.run_id OR rowid = NEW.rowid',
  attempts: 'seq = NEW.seq',
  policies: 'sha256 = NEW.sha256 OR rowid = NEW.rowid',
  policy_changes: 'seq = NEW.seq',
  policy_fetches: 'seq = NEW.seq',
};

// `seq` is the rowid without AUTOINCREMENT: no row is ever deleted (the triggers below), so the next
// rowid is always past every one written, which is all AUTOINCREMENT adds; its sqlite_sequence
// update cost 3 to 4 µs an attempt row. Audits written before keep their AUTOINCREMENT tables.
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  started_at TEXT NOT NULL,
  user_agent TEXT NOT NULL,
  options TEXT NOT NULL,
  resume_of TEXT,
  worker TEXT
);
CREATE TABLE IF NOT EXISTS run_ends (
  run_id TEXT NOT NULL,
  ended_at TEXT NOT NULL,
  status TEXT NOT NULL,
  counts TEXT NOT NULL,
  error TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT NOT NULL,
  outcome TEXT NOT NULL,
  status INTEGER,
  bytes INTEGER,
  content_sha256 TEXT,
  saved_path TEXT,
  policy_sha256 TEXT,
  robots_url TEXT,
  policy_fetched_at TEXT,
  policy_status TEXT,
  reason TEXT NOT NULL,
  rule_line INTEGER,
  rule_pattern TEXT,
  parent_url TEXT,
  kind TEXT NOT NULL,
  wait_reason TEXT,
  interval_ms INTEGER,
  error TEXT,
  attempt INTEGER NOT NULL DEFAULT 1,
  final INTEGER NOT NULL DEFAULT 0,
  location TEXT,
  headers TEXT,
  truncated INTEGER,
  sitemap TEXT,
  usage TEXT
);
CREATE INDEX IF NOT EXISTS attempts_host ON attempts (host, started_at);
CREATE INDEX IF NOT EXISTS attempts_url ON attempts (url);
CREATE INDEX IF NOT EXISTS attempts_outcome ON attempts (outcome);
CREATE TABLE IF NOT EXISTS policies (
  sha256 TEXT PRIMARY KEY,
  origin TEXT NOT NULL,
  robots_url TEXT NOT NULL,
  final_url TEXT NOT NULL,
  status TEXT NOT NULL,
  fetched_at TEXT NOT NULL,
  sitemaps TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS policies_origin ON policies (origin, fetched_at);
CREATE TABLE IF NOT EXISTS policy_changes (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  origin TEXT NOT NULL,
  old_sha256 TEXT,
  new_sha256 TEXT,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS policy_changes_origin ON policy_changes (origin, at);
CREATE TABLE IF NOT EXISTS policy_fetches (
  seq INTEGER PRIMARY KEY,
  origin TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  fetched_at TEXT NOT NULL
);
${Object.entries(APPEND_ONLY)
  .map(
    ([t, key]) => `
CREATE TRIGGER IF NOT EXISTS ${t}_no_update BEFORE UPDATE ON ${t} BEGIN SELECT RAISE(ABORT, 'audit rows are append-only'); END;
CREATE TRIGGER IF NOT EXISTS ${t}_no_delete BEFORE DELETE ON ${t} BEGIN SELECT RAISE(ABORT, 'audit rows are append-only'); END;
CREATE TRIGGER IF NOT EXISTS ${t}_no_replace BEFORE INSERT ON ${t} WHEN EXISTS (SELECT 1 FROM ${t} WHERE ${key}) BEGIN SELECT RAISE(ABORT, 'audit rows are append-only'); END;`,
  )
  .join('')}
`;
