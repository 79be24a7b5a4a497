// Reads a crawl's audit: every `audit*.sqlite` in a directory as one (a fleet's workers each
// write `audit-<worker>.sqlite`). Used by `robots-gate audit`, `--resume`, and the report tools.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openReadOnly } from './open-read-only.js';
import type { AttemptOutcome, PolicyChangeRow, PolicyRow } from './types.js';

export type { StoredAttempt, StoredPolicyChange, RunSummary, HostSummary, AttemptFilter, PolicyVersion, TimelineEntry, AuditReader } from './read-types.js';
import type { StoredAttempt, StoredPolicyChange, RunSummary, HostSummary, AttemptFilter, PolicyVersion, TimelineEntry, AuditReader, LastPolicy, LastBackoff } from './read-types.js';

/** A row's outcome as the summaries count it: a response received whose document could not be
 *  saved (reason save-failed: a full disk) is an error there, as the run's end counts it, not a
 *  fetch; the row itself keeps `fetched`, what happened on the wire. */
const COUNTED_OUTCOME = "CASE WHEN reason = 'save-failed' THEN 'error' ELSE outcome END";

/** Thrown when DIR holds no audit file, or one cannot be read. code `ERR_AUDIT_READ`. */
export class AuditReadError extends Error {
  readonly code = 'ERR_AUDIT_READ';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditReadError';
  }
}

interface Db {
  readonly file: string;
  readonly db: Database.Database;
  /** The attempt columns to select (an audit written before `location` existed has NULL). */
  readonly columns: string;
}

const ATTEMPT_COLUMNS = `seq, run_id AS runId, url, host, started_at AS startedAt, ended_at AS endedAt, outcome, status,
  bytes, content_sha256 AS contentSha256, saved_path AS savedPath, policy_sha256 AS policySha256, robots_url AS robotsUrl,
  policy_fetched_at AS policyFetchedAt, policy_status AS policyStatus, reason, rule_line AS ruleLine,
  rule_pattern AS rulePattern, parent_url AS parentUrl, kind, wait_reason AS waitReason, interval_ms AS intervalMs,
  error, attempt, final`;

const POLICY_COLUMNS = `sha256, origin, robots_url AS robotsUrl, final_url AS finalUrl, status, fetched_at AS fetchedAt,
  sitemaps, body`;

/** The audit file names in `dir` (`audit.sqlite`, `audit-<worker>.sqlite`, …), sorted. */
export function auditFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^audit.*\.sqlite$/.test(f))
    .sort();
}

/**
 * Open every `audit*.sqlite` in `dir` (or one file, if `dir` is a .sqlite file) read-only.
 * @throws AuditReadError when there is none or one cannot be opened.
 */
export function openAudit(dir: string): AuditReader {
  let files: string[];
  let base: string;
  try {
    if (fs.statSync(dir).isFile()) {
      base = path.dirname(dir);
      files = [path.basename(dir)];
    } else {
      base = dir;
      files = auditFiles(dir);
    }
  } catch (err) {
    throw new AuditReadError(`cannot read audit directory ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such directory' : (err as Error).message}`, { cause: err });
  }
  if (files.length === 0) throw new AuditReadError(`no audit*.sqlite file in ${dir}`);
  const dbs: Db[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const full = path.join(base, file);
    try {
      const { db, note } = openReadOnly(full);
      if (note) notes.push(note);
      const names = new Set((db.prepare('PRAGMA table_info(attempts)').all() as { name: string }[]).map((c) => c.name));
      const optional = ['location', 'headers', 'truncated', 'sitemap', 'usage'].map((c) => (names.has(c) ? c : `NULL AS ${c}`)).join(', ');
      dbs.push({ file, db, columns: `${ATTEMPT_COLUMNS}, ${optional}` });
    } catch (err) {
      for (const d of dbs) d.db.close();
      throw new AuditReadError(`cannot open audit file ${full}: ${(err as Error).message}`, { cause: err });
    }
  }
  return new MergedAudit(dbs, notes);
}

const byTime = <T extends { startedAt: string }>(a: T, b: T) =>
  a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0;

function originMatches(hostOrOrigin: string): { sql: string; value: string } {
  return hostOrOrigin.includes('://')
    ? { sql: 'origin = ?', value: hostOrOrigin }
    : { sql: "substr(origin, instr(origin, '://') + 3) = ?", value: hostOrOrigin };
}

class MergedAudit implements AuditReader {
  readonly files: readonly string[];
  constructor(
    private readonly dbs: readonly Db[],
    readonly notes: readonly string[],
  ) {
    this.files = dbs.map((d) => d.file);
  }

  runs(): RunSummary[] {
    const out: RunSummary[] = [];
    for (const { file, db } of this.dbs) {
      const runs = db.prepare('SELECT run_id, started_at, user_agent, options, resume_of, worker FROM runs').all() as {
        run_id: string;
        started_at: string;
        user_agent: string;
        options: string;
        resume_of: string | null;
        worker: string | null;
      }[];
      const ends = db.prepare('SELECT run_id, ended_at, status FROM run_ends').all() as {
        run_id: string;
        ended_at: string;
        status: RunSummary['status'];
      }[];
      const counts = db.prepare(`SELECT run_id, ${COUNTED_OUTCOME} AS outcome, final, COUNT(*) AS n FROM attempts GROUP BY 1, 2, 3`).all() as {
        run_id: string;
        outcome: AttemptOutcome;
        final: number;
        n: number;
      }[];
      for (const r of runs) {
        const end = ends.find((e) => e.run_id === r.run_id);
        const outcomes: Partial<Record<AttemptOutcome, number>> = {};
        const settled: Partial<Record<AttemptOutcome, number>> = {};
        let attempts = 0;
        for (const c of counts) {
          if (c.run_id !== r.run_id) continue;
          outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + c.n;
          if (c.final === 1) settled[c.outcome] = (settled[c.outcome] ?? 0) + c.n;
          attempts += c.n;
        }
        out.push({
          runId: r.run_id,
          startedAt: r.started_at,
          endedAt: end?.ended_at ?? null,
          status: end?.status ?? 'unfinished',
          userAgent: r.user_agent,
          options: JSON.parse(r.options) as Record<string, unknown>,
          resumeOf: r.resume_of,
          worker: r.worker,
          file,
          outcomes,
          settled,
          attempts,
        });
      }
    }
    return out.sort(byTime);
  }

  attempts(filter: AttemptFilter = {}): StoredAttempt[] {
    const where: string[] = [];
    const args: unknown[] = [];
    const eq = (col: string, v: unknown) => {
      if (v === undefined) return;
      where.push(`${col} = ?`);
      args.push(v);
    };
    eq('run_id', filter.runId);
    eq('host', filter.host);
    eq('outcome', filter.outcome);
    eq('url', filter.url);
    eq('kind', filter.kind);
    eq('policy_sha256', filter.policySha256);
    if (filter.since !== undefined) {
      where.push('started_at >= ?');
      args.push(filter.since);
    }
    if (filter.until !== undefined) {
      where.push('started_at <= ?');
      args.push(filter.until);
    }
    const perFile = filter.limit !== undefined ? filter.limit + (filter.offset ?? 0) : undefined;
    const tail = `FROM attempts ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
      ORDER BY started_at, seq ${perFile !== undefined ? `LIMIT ${perFile | 0}` : ''}`;
    let rows: StoredAttempt[] = [];
    for (const { file, db, columns } of this.dbs) {
      for (const r of db.prepare(`SELECT ${columns} ${tail}`).all(...args) as Record<string, unknown>[]) {
        rows.push(toAttempt(r, file));
      }
    }
    if (this.dbs.length > 1) rows.sort(byTime);
    if (filter.offset !== undefined || filter.limit !== undefined) {
      const start = filter.offset ?? 0;
      rows = rows.slice(start, filter.limit !== undefined ? start + filter.limit : undefined);
    }
    return rows;
  }

  blocked(filter: Omit<AttemptFilter, 'outcome'> = {}): StoredAttempt[] {
    return this.attempts({ ...filter, outcome: 'blocked' });
  }

  hosts(): HostSummary[] {
    const acc = new Map<
      string,
      {
        attempts: number;
        outcomes: Partial<Record<AttemptOutcome, number>>;
        settled: Partial<Record<AttemptOutcome, number>>;
        firstAt: string;
        lastAt: string;
        policies: Set<string>;
        maxIntervalMs: number | null;
        maxIntervalReason: string | null;
      }
    >();
    for (const { db } of this.dbs) {
      const rows = db
        .prepare(
          `SELECT host, ${COUNTED_OUTCOME} AS outcome, final, COUNT(*) AS n, MIN(started_at) AS firstAt, MAX(started_at) AS lastAt
           FROM attempts GROUP BY 1, 2, 3`,
        )
        .all() as { host: string; outcome: AttemptOutcome; final: number; n: number; firstAt: string; lastAt: string }[];
      for (const r of rows) {
        let h = acc.get(r.host);
        if (!h) {
          h = { attempts: 0, outcomes: {}, settled: {}, firstAt: r.firstAt, lastAt: r.lastAt, policies: new Set(), maxIntervalMs: null, maxIntervalReason: null };
          acc.set(r.host, h);
        }
        h.attempts += r.n;
        h.outcomes[r.outcome] = (h.outcomes[r.outcome] ?? 0) + r.n;
        if (r.final === 1) h.settled[r.outcome] = (h.settled[r.outcome] ?? 0) + r.n;
        if (r.firstAt < h.firstAt) h.firstAt = r.firstAt;
        if (r.lastAt > h.lastAt) h.lastAt = r.lastAt;
      }
      for (const r of db
        .prepare('SELECT DISTINCT host, policy_sha256 AS sha FROM attempts WHERE policy_sha256 IS NOT NULL')
        .all() as { host: string; sha: string }[]) {
        acc.get(r.host)?.policies.add(r.sha);
      }
      for (const r of db
        .prepare(
          `SELECT host, interval_ms AS ms, wait_reason AS why FROM attempts a WHERE interval_ms IS NOT NULL
           AND interval_ms = (SELECT MAX(interval_ms) FROM attempts b WHERE b.host = a.host) GROUP BY host`,
        )
        .all() as { host: string; ms: number; why: string | null }[]) {
        const h = acc.get(r.host);
        if (h && (h.maxIntervalMs === null || r.ms > h.maxIntervalMs)) {
          h.maxIntervalMs = r.ms;
          h.maxIntervalReason = r.why;
        }
      }
    }
    return [...acc.entries()]
      .map(([host, h]) => ({
        host,
        attempts: h.attempts,
        outcomes: h.outcomes,
        settled: h.settled,
        firstAt: h.firstAt,
        lastAt: h.lastAt,
        policyVersions: h.policies.size,
        maxIntervalMs: h.maxIntervalMs,
        maxIntervalReason: h.maxIntervalReason,
      }))
      .sort((a, b) => (a.host < b.host ? -1 : 1));
  }

  policies(origin?: string): PolicyRow[] {
    const seen = new Map<string, PolicyRow>();
    for (const { db } of this.dbs) {
      const rows = (
        origin === undefined
          ? db.prepare(`SELECT ${POLICY_COLUMNS} FROM policies`).all()
          : (() => {
              const m = originMatches(origin);
              return db.prepare(`SELECT ${POLICY_COLUMNS} FROM policies WHERE ${m.sql}`).all(m.value);
            })()
      ) as Record<string, unknown>[];
      for (const r of rows) {
        const p = toPolicy(r);
        const prev = seen.get(p.sha256);
        if (!prev || p.fetchedAt < prev.fetchedAt) seen.set(p.sha256, p);
      }
    }
    return [...seen.values()].sort((a, b) => (a.fetchedAt < b.fetchedAt ? -1 : a.fetchedAt > b.fetchedAt ? 1 : 0));
  }

  policy(sha256: string): PolicyRow | undefined {
    for (const { db } of this.dbs) {
      const r = db.prepare(`SELECT ${POLICY_COLUMNS} FROM policies WHERE sha256 = ?`).get(sha256) as
        | Record<string, unknown>
        | undefined;
      if (r) return toPolicy(r);
    }
    return undefined;
  }

  policyVersions(hostOrOrigin: string): PolicyVersion[] {
    const versions = this.policies(hostOrOrigin);
    return versions.map((p) => {
      let attempts = 0;
      let firstUsedAt: string | null = null;
      let lastUsedAt: string | null = null;
      for (const { db } of this.dbs) {
        const r = db
          .prepare('SELECT COUNT(*) AS n, MIN(started_at) AS a, MAX(started_at) AS b FROM attempts WHERE policy_sha256 = ?')
          .get(p.sha256) as { n: number; a: string | null; b: string | null };
        attempts += r.n;
        if (r.a !== null && (firstUsedAt === null || r.a < firstUsedAt)) firstUsedAt = r.a;
        if (r.b !== null && (lastUsedAt === null || r.b > lastUsedAt)) lastUsedAt = r.b;
      }
      return { ...p, attempts, firstUsedAt, lastUsedAt };
    });
  }

  policyChanges(hostOrOrigin?: string): StoredPolicyChange[] {
    const out: StoredPolicyChange[] = [];
    for (const { file, db } of this.dbs) {
      const cols = 'run_id AS runId, origin, old_sha256 AS oldSha256, new_sha256 AS newSha256, at';
      const rows = (
        hostOrOrigin === undefined
          ? db.prepare(`SELECT ${cols} FROM policy_changes ORDER BY seq`).all()
          : (() => {
              const m = originMatches(hostOrOrigin);
              return db.prepare(`SELECT ${cols} FROM policy_changes WHERE ${m.sql} ORDER BY seq`).all(m.value);
            })()
      ) as PolicyChangeRow[];
      for (const r of rows) out.push({ ...r, file });
    }
    return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }

  timeline(host: string): TimelineEntry[] {
    const entries: TimelineEntry[] = [
      ...this.attempts({ host }).map((a) => ({ type: 'attempt' as const, at: a.startedAt, ...a })),
      ...this.policyChanges(host).map((c) => ({ type: 'policy-change' as const, ...c })),
    ];
    return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }

  outcomeCounts(runId?: string): Partial<Record<AttemptOutcome, number>> {
    const out: Partial<Record<AttemptOutcome, number>> = {};
    for (const { db } of this.dbs) {
      const rows = (
        runId === undefined
          ? db.prepare('SELECT outcome, COUNT(*) AS n FROM attempts WHERE final = 1 GROUP BY outcome').all()
          : db.prepare('SELECT outcome, COUNT(*) AS n FROM attempts WHERE final = 1 AND run_id = ? GROUP BY outcome').all(runId)
      ) as { outcome: AttemptOutcome; n: number }[];
      for (const r of rows) out[r.outcome] = (out[r.outcome] ?? 0) + r.n;
    }
    return out;
  }

  doneUrls(): Set<string> {
    const done = new Set<string>();
    for (const { db } of this.dbs) {
      // A URL blocked because its robots.txt was unreachable is not settled: RFC 9309 §2.3.1.4
      // makes that disallow last only while the file cannot be read, so --resume asks again.
      for (const r of db.prepare("SELECT DISTINCT url FROM attempts WHERE final = 1 AND NOT (outcome = 'blocked' AND reason IS 'unreachable')").iterate() as Iterable<{ url: string }>) {
        done.add(r.url);
      }
    }
    return done;
  }

  pendingRedirects(): { url: string; parentUrl: string; depth: number }[] {
    const done = this.doneUrls();
    const out = new Map<string, string>();
    // Each redirect target's parent, to count how deep in its chain a pending target is: a resumed
    // run keeps the chain's limit instead of starting it again.
    const parents = new Map<string, string>();
    for (const { db, columns } of this.dbs) {
      for (const r of db.prepare("SELECT url, parent_url AS parentUrl FROM attempts WHERE kind = 'redirect' AND parent_url IS NOT NULL").iterate() as Iterable<{ url: string; parentUrl: string }>) {
        if (!parents.has(r.url)) parents.set(r.url, r.parentUrl);
      }
      if (columns.includes('NULL AS location')) continue;
      for (const r of db.prepare('SELECT url, location FROM attempts WHERE final = 1 AND location IS NOT NULL').iterate() as Iterable<{ url: string; location: string }>) {
        if (!done.has(r.location) && !out.has(r.location)) out.set(r.location, r.url);
      }
    }
    const depthOf = (url: string): number => {
      let depth = 0;
      const seen = new Set<string>();
      for (let at = parents.get(url); at !== undefined && !seen.has(at); at = parents.get(at)) {
        seen.add(at);
        depth++;
      }
      return depth;
    };
    return [...out].map(([url, parentUrl]) => ({ url, parentUrl, depth: depthOf(parentUrl) + 1 }));
  }

  lastSent(): Map<string, { endedAt: number; intervalMs: number | null }> {
    const out = new Map<string, { endedAt: number; intervalMs: number | null }>();
    // Sent: a response came (status) or the request left and failed or was cut (network error,
    // aborted by Ctrl-C). Blocked and skipped rows sent nothing; neither did a failed check.
    const sql = `SELECT host, MAX(ended_at) AS endedAt,
        (SELECT interval_ms FROM attempts b WHERE b.host = a.host AND b.interval_ms IS NOT NULL ORDER BY b.seq DESC LIMIT 1) AS intervalMs
      FROM attempts a WHERE host != '' AND (status IS NOT NULL OR reason IN ('network-error', 'aborted')) GROUP BY host`;
    for (const { db } of this.dbs) {
      for (const r of db.prepare(sql).iterate() as Iterable<{ host: string; endedAt: string; intervalMs: number | null }>) {
        const endedAt = Date.parse(r.endedAt);
        if (!Number.isFinite(endedAt)) continue;
        const prev = out.get(r.host);
        if (!prev || endedAt > prev.endedAt) out.set(r.host, { endedAt, intervalMs: r.intervalMs });
      }
    }
    return out;
  }

  lastBackoffs(): Map<string, LastBackoff> {
    const out = new Map<string, LastBackoff>();
    // TDMRep reads are left out: the crawl does not back off on their 429/503 (the file is then
    // unreachable, which reserves), so a resumed run keeps no back-off the stopped one did not.
    for (const { db, columns } of this.dbs) {
      const headers = columns.includes('NULL AS headers') ? 'NULL' : 'headers';
      const sql = `SELECT host, ended_at AS endedAt, status, ${headers} AS headers, run_id AS runId, MAX(seq)
        FROM attempts WHERE host != '' AND status IN (429, 503) AND kind != 'tdmrep' GROUP BY host`;
      for (const r of db.prepare(sql).iterate() as Iterable<{ host: string; endedAt: string; status: number; headers: string | null; runId: string }>) {
        const endedAt = Date.parse(r.endedAt);
        if (!Number.isFinite(endedAt)) continue;
        const prev = out.get(r.host);
        if (prev && prev.endedAt >= endedAt) continue;
        out.set(r.host, { endedAt, status: r.status, retryAfter: retryAfterOf(r.headers), runId: r.runId });
      }
    }
    return out;
  }

  lastPolicies(): Map<string, LastPolicy> {
    const out = new Map<string, LastPolicy>();
    const offer = (origin: string, host: string | null, sha256: string, at: string, runId: string | null) => {
      const ms = Date.parse(at);
      const h = host ?? hostOf(origin);
      if (h === '' || !Number.isFinite(ms)) return;
      const prev = out.get(h);
      if (!prev || ms > prev.at) out.set(h, { sha256, at: ms, runId, overridden: false });
    };
    const overridden = new Set<string>();
    for (const { db } of this.dbs) {
      // The version a host's latest stamped row went by (SQLite takes the bare columns from the MAX row).
      const rows = db.prepare(`SELECT host, robots_url AS robotsUrl, policy_sha256 AS sha256, policy_fetched_at AS at, run_id AS runId, MAX(seq)
        FROM attempts WHERE host != '' AND policy_sha256 IS NOT NULL AND policy_fetched_at IS NOT NULL GROUP BY host`).all() as { host: string; robotsUrl: string; sha256: string; at: string; runId: string }[];
      for (const r of rows) offer(r.robotsUrl, r.host, r.sha256, r.at, r.runId);
      // A fetch no row went by yet (the run was killed before its first request there): its
      // policy row, or the change it recorded (a body seen before keeps its first fetched_at).
      for (const r of db.prepare('SELECT origin, sha256, fetched_at AS at FROM policies').all() as { origin: string; sha256: string; at: string }[]) offer(r.origin, null, r.sha256, r.at, null);
      // Each origin's own fetches (audits written before this table have none: their hosts that
      // served a text another host served first are read as never asked).
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'policy_fetches'").get() !== undefined) {
        for (const r of db.prepare('SELECT origin, sha256, MAX(fetched_at) AS at FROM policy_fetches GROUP BY origin').all() as { origin: string; sha256: string; at: string }[]) offer(r.origin, null, r.sha256, r.at, null);
      }
      for (const r of db.prepare('SELECT origin, new_sha256 AS sha256, at, run_id AS runId FROM policy_changes WHERE new_sha256 IS NOT NULL').all() as { origin: string; sha256: string; at: string; runId: string }[]) {
        offer(r.origin, null, r.sha256, r.at, r.runId);
      }
      const sql = "SELECT run_id AS runId, host FROM attempts WHERE outcome = 'overridden' OR wait_reason = 'override' GROUP BY run_id, host";
      for (const r of db.prepare(sql).all() as { runId: string; host: string }[]) overridden.add(`${r.runId} ${r.host}`);
    }
    for (const [host, p] of out) if (p.runId !== null && overridden.has(`${p.runId} ${host}`)) out.set(host, { ...p, overridden: true });
    return out;
  }

  runHosts(runId: string): Set<string> {
    const out = new Set<string>();
    for (const { db } of this.dbs) {
      for (const r of db.prepare("SELECT DISTINCT host FROM attempts WHERE run_id = ? AND host != ''").all(runId) as { host: string }[]) out.add(r.host);
      // Policy rows carry no run: a body first fetched once the run had started may be its fetch.
      const sql = `SELECT DISTINCT origin FROM policy_changes WHERE run_id = @runId
        UNION SELECT DISTINCT origin FROM policies WHERE fetched_at >= (SELECT started_at FROM runs WHERE run_id = @runId)`;
      for (const r of db.prepare(sql).all({ runId }) as { origin: string }[]) {
        const h = hostOf(r.origin);
        if (h !== '') out.add(h);
      }
    }
    return out;
  }

  close(): void {
    for (const { db } of this.dbs) db.close();
  }
}

function toAttempt(r: Record<string, unknown>, file: string): StoredAttempt {
  const status = r.policyStatus as string | null;
  return {
    ...(r as unknown as StoredAttempt),
    policyStatus: status !== null && /^\d+$/.test(status) ? Number(status) : status,
    final: r.final === 1,
    truncated: r.truncated === 1,
    headers: typeof r.headers === 'string' ? (JSON.parse(r.headers) as Record<string, string>) : null,
    sitemap: typeof r.sitemap === 'string' ? (JSON.parse(r.sitemap) as StoredAttempt['sitemap']) : null,
    usage: typeof r.usage === 'string' ? (JSON.parse(r.usage) as StoredAttempt['usage']) : null,
    file,
  };
}

function toPolicy(r: Record<string, unknown>): PolicyRow {
  const status = r.status as string;
  return {
    ...(r as unknown as PolicyRow),
    status: /^\d+$/.test(status) ? Number(status) : status,
    sitemaps: JSON.parse(r.sitemaps as string) as string[],
  };
}

/** `URL.host` of an origin or robots.txt URL ('' when it is not one). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The Retry-After value kept in a row's headers (JSON, names in lower case), as sent. */
function retryAfterOf(headers: string | null): string | undefined {
  if (headers === null) return undefined;
  try {
    const v = (JSON.parse(headers) as Record<string, unknown>)['retry-after'];
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
