import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditWriteError } from '../../src/audit/errors.js';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import { openAudit } from '../../src/audit/reader.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import type { AttemptRow } from '../../src/audit/types.js';
import { attemptRow } from '../helpers/attempt-rows.js';
import { canMountTmpfs } from '../helpers/tmpfs.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-audit-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const row = (over: Partial<AttemptRow>): AttemptRow =>
  attemptRow({ contentSha256: 'c'.repeat(64), savedPath: 'a.test/x', ...over });

const policy = (sha: string, origin: string, fetchedAt: string, body: string) => ({
  sha256: sha,
  origin,
  robotsUrl: `${origin}/robots.txt`,
  finalUrl: `${origin}/robots.txt`,
  status: 200,
  fetchedAt,
  sitemaps: [`${origin}/sitemap.xml`],
  body,
});

describe('SQLite audit', () => {
  // Every way SQL has of rewriting a row, on every table the promise covers. REPLACE deletes the
  // old row without firing DELETE triggers, so each is tried, and the table compared after.
  it.each([
    ['meta', 'value'],
    ['runs', 'user_agent'],
    ['run_ends', 'status'],
    ['attempts', 'outcome'],
    ['policies', 'body'],
    ['policy_changes', 'new_sha256'],
  ])('%s: the database refuses UPDATE, DELETE, REPLACE and UPSERT', (table, col) => {
    const dir = tmp();
    const file = path.join(dir, 'audit.sqlite');
    const sink = new SqliteAuditSink(file);
    sink.recordRun({ runId: 'r1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'Bot', options: {}, resumeOf: null, worker: null });
    sink.recordAttempt(row({ outcome: 'blocked' }));
    sink.recordPolicy(policy('p1', 'http://a.test', '2026-01-01T00:00:00.000Z', 'User-agent: *\nDisallow: /\n'));
    sink.recordPolicyChange({ runId: 'r1', origin: 'http://a.test', oldSha256: null, newSha256: 'p1', at: '2026-01-01T00:00:00.000Z' });
    sink.recordRunEnd({ runId: 'r1', endedAt: '2026-01-01T00:00:01.000Z', status: 'completed', counts: { blocked: 1 }, error: null });
    sink.close();
    const db = new Database(file);
    const snapshot = () => db.prepare(`SELECT rowid AS rid, * FROM ${table} ORDER BY rowid`).all();
    const before = snapshot();
    expect(before).toHaveLength(1);
    const old = before[0] as Record<string, unknown>;
    const cols = Object.keys(old).filter((c) => c !== 'rid');
    const values = { ...Object.fromEntries(cols.map((c) => [c, old[c]])), [col]: 'rewritten', rid: old.rid };
    const names = cols.join(', ');
    const params = cols.map((c) => `@${c}`).join(', ');
    const attempts = {
      update: `UPDATE ${table} SET ${col} = 'rewritten'`,
      'update or replace': `UPDATE OR REPLACE ${table} SET ${col} = 'rewritten'`,
      delete: `DELETE FROM ${table}`,
      'insert or replace, same key': `INSERT OR REPLACE INTO ${table} (${names}) VALUES (${params})`,
      'insert or replace, same rowid': `INSERT OR REPLACE INTO ${table} (rowid, ${names}) VALUES (@rid, ${params})`,
      'replace into': `REPLACE INTO ${table} (rowid, ${names}) VALUES (@rid, ${params})`,
      upsert: `INSERT INTO ${table} (rowid, ${names}) VALUES (@rid, ${params}) ON CONFLICT DO UPDATE SET ${col} = excluded.${col}`,
    };
    for (const [what, sql] of Object.entries(attempts)) {
      const stmt = db.prepare(sql);
      const bound = sql.includes('@') ? Object.fromEntries(Object.entries(values).filter(([k]) => sql.includes(`@${k}`))) : undefined;
      expect(() => (bound ? stmt.run(bound) : stmt.run()), what).toThrow(/append-only|UNIQUE constraint/);
      expect(snapshot(), what).toEqual(before);
    }
    db.close();
    // The writer still appends, and a policy seen again is still idempotent.
    const again = new SqliteAuditSink(file);
    again.recordPolicy(policy('p1', 'http://a.test', '2026-01-01T00:00:02.000Z', 'User-agent: *\nDisallow: /\n'));
    again.recordAttempt(row({}));
    again.close();
    const a = openAudit(dir);
    expect(a.attempts()).toHaveLength(2);
    expect(a.policies()).toHaveLength(1);
    a.close();
  });

  it('a response whose document a full disk kept from being saved counts as an error in the run and host summaries, as the run end counts it', () => {
    const dir = tmp();
    const sink = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    sink.recordRun({ runId: 'r1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'Bot', options: {}, resumeOf: null, worker: null });
    sink.recordAttempt(row({ url: 'http://a.test/1', contentSha256: 'c'.repeat(64), savedPath: 'a.test/1' }));
    for (const u of ['http://a.test/2', 'http://a.test/3']) sink.recordAttempt(row({ url: u, reason: 'save-failed', final: false, error: 'ENOSPC: no space left on device' }));
    sink.close();
    const a = openAudit(dir);
    try {
      expect(a.runs()[0]!.outcomes).toEqual({ fetched: 1, error: 2 });
      expect(a.hosts()[0]!.outcomes).toEqual({ fetched: 1, error: 2 });
      // The rows themselves say what happened on the wire.
      expect(a.attempts().map((r) => [r.outcome, r.reason])).toEqual([['fetched', 'no-matching-rule'], ['fetched', 'save-failed'], ['fetched', 'save-failed']]);
    } finally {
      a.close();
    }
  });

  it('reads every audit*.sqlite of a directory as one, with the queries the tools need', () => {
    const dir = tmp();
    const w1 = new SqliteAuditSink(path.join(dir, 'audit-w1.sqlite'));
    const w2 = new SqliteAuditSink(path.join(dir, 'audit-w2.sqlite'));
    w1.recordRun({ runId: 'r1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'Bot', options: { a: 1 }, resumeOf: null, worker: 'w1' });
    w2.recordRun({ runId: 'r1', startedAt: '2026-01-01T00:00:00.001Z', userAgent: 'Bot', options: {}, resumeOf: null, worker: 'w2' });
    w1.recordPolicy(policy('p1', 'http://a.test', '2026-01-01T00:00:00.000Z', 'User-agent: *\nDisallow: /p\n'));
    w2.recordPolicy(policy('p1', 'http://a.test', '2026-01-01T00:00:00.005Z', 'User-agent: *\nDisallow: /p\n'));
    w1.recordPolicy(policy('p1', 'http://a.test', '2026-01-01T00:00:00.000Z', 'ignored: same key'));
    w2.recordPolicy(policy('p2', 'http://a.test', '2026-01-01T00:00:02.000Z', 'User-agent: *\nDisallow: /q\n'));
    w1.recordAttempt(row({ url: 'http://a.test/1', startedAt: '2026-01-01T00:00:01.000Z' }));
    w2.recordAttempt(row({ url: 'http://a.test/p', outcome: 'blocked', reason: 'disallowed-by-rule', ruleLine: 2, rulePattern: '/p', startedAt: '2026-01-01T00:00:00.500Z', status: null }));
    w2.recordPolicyChange({ runId: 'r1', origin: 'http://a.test', oldSha256: 'p1', newSha256: 'p2', at: '2026-01-01T00:00:02.000Z' });
    w2.recordAttempt(row({ url: 'http://a.test/2', policySha256: 'p2', startedAt: '2026-01-01T00:00:03.000Z', intervalMs: 2000, waitReason: 'crawl-delay' }));
    w1.recordAttempt(row({ url: 'http://a.test/3', host: 'b.test', outcome: 'error', final: false, startedAt: '2026-01-01T00:00:04.000Z' }));
    w1.recordRunEnd({ runId: 'r1', endedAt: '2026-01-01T00:01:00.000Z', status: 'completed', counts: {}, error: null });
    w1.close();
    w2.close();

    const a = openAudit(dir);
    expect(a.files).toEqual(['audit-w1.sqlite', 'audit-w2.sqlite']);
    expect(a.runs().map((r) => [r.worker, r.status, r.attempts])).toEqual([
      ['w1', 'completed', 2],
      ['w2', 'unfinished', 2],
    ]);
    expect(a.attempts().map((r) => r.url)).toEqual(['http://a.test/p', 'http://a.test/1', 'http://a.test/2', 'http://a.test/3']);
    expect(a.attempts({ limit: 2, offset: 1 }).map((r) => r.url)).toEqual(['http://a.test/1', 'http://a.test/2']);
    expect(a.blocked().map((r) => [r.url, r.ruleLine, r.rulePattern, r.policyStatus])).toEqual([['http://a.test/p', 2, '/p', 200]]);
    const versions = a.policyVersions('a.test');
    expect(versions.map((v) => [v.sha256, v.attempts, v.sitemaps[0]])).toEqual([
      ['p1', 3, 'http://a.test/sitemap.xml'],
      ['p2', 1, 'http://a.test/sitemap.xml'],
    ]);
    expect(a.policy('p1')?.body).toBe('User-agent: *\nDisallow: /p\n');
    expect(a.policyChanges('http://a.test').map((c) => [c.oldSha256, c.newSha256, c.file])).toEqual([['p1', 'p2', 'audit-w2.sqlite']]);
    expect(a.timeline('a.test').map((e) => e.type)).toEqual(['attempt', 'attempt', 'policy-change', 'attempt']);
    const hosts = a.hosts();
    expect(hosts.find((h) => h.host === 'a.test')).toMatchObject({ attempts: 3, policyVersions: 2, maxIntervalMs: 2000, maxIntervalReason: 'crawl-delay', outcomes: { fetched: 2, blocked: 1 } });
    expect(a.outcomeCounts()).toEqual({ fetched: 2, blocked: 1 });
    expect([...a.doneUrls()].sort()).toEqual(['http://a.test/1', 'http://a.test/2', 'http://a.test/p']);
    a.close();
  });

  it('a directory with no audit, or a missing one, is a clear error', () => {
    const dir = tmp();
    expect(() => openAudit(dir)).toThrow(/no audit\*\.sqlite file/);
    expect(() => openAudit(path.join(dir, 'nope'))).toThrow(/cannot read audit directory/);
  });

  it('a file that cannot be created is an AuditWriteError naming it', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'file'), '');
    const target = path.join(dir, 'file', 'audit.sqlite');
    expect(() => new SqliteAuditSink(target)).toThrow(AuditWriteError);
    expect(() => new SqliteAuditSink(target)).toThrow(target);
  });


  it.skipIf(!canMountTmpfs)('a full disk: a disk-full AuditWriteError, and the rows written before are intact', () => {
    const dir = tmp();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    try {
      const file = path.join(dir, 'audit.sqlite');
      const sink = new SqliteAuditSink(file);
      let written = 0;
      let error: unknown;
      for (let i = 0; i < 100_000; i++) {
        try {
          sink.recordAttempt(row({ url: `http://a.test/${i}`, error: 'x'.repeat(500) }));
          written++;
        } catch (err) {
          error = err;
          break;
        }
      }
      sink.close();
      expect(error).toBeInstanceOf(AuditWriteError);
      expect((error as AuditWriteError).reason).toBe('disk-full');
      expect((error as Error).message).toMatch(/disk is full/);
      expect(written).toBeGreaterThan(10);
      const a = openAudit(dir);
      expect(a.attempts().length).toBe(written);
      a.close();
    } finally {
      execFileSync('umount', ['-l', dir]);
    }
  });
});

describe('JSONL audit', () => {
  it('one object a line, policies once per sha256', () => {
    const dir = tmp();
    const file = path.join(dir, 'a.jsonl');
    const sink = new JsonlAuditSink(file);
    sink.recordPolicy(policy('p1', 'http://a.test', 't', 'body'));
    sink.recordPolicy(policy('p1', 'http://a.test', 't', 'body'));
    sink.recordAttempt(row({}));
    sink.recordPolicyChange({ runId: 'r1', origin: 'http://a.test', oldSha256: 'p1', newSha256: 'p2', at: 't' });
    sink.close();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['policy', 'attempt', 'policy-change']);
    expect(lines[1].url).toBe('http://a.test/x');
  });

  it('a file a full disk left ending mid-line: the next run\'s rows start on a line of their own', () => {
    const file = path.join(tmp(), 'a.jsonl');
    const whole = JSON.stringify({ type: 'run', runId: 'r1' });
    fs.writeFileSync(file, `${whole}\n{"type":"attempt","url":"http://a.te`);
    const sink = new JsonlAuditSink(file);
    sink.recordRun({ runId: 'r2', startedAt: 't', userAgent: 'Bot/1.0', productToken: 'Bot', options: {} } as never);
    sink.recordAttempt(row({}));
    sink.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toBe(whole);
    expect(lines[1]).toBe('{"type":"attempt","url":"http://a.te');
    expect(JSON.parse(lines[2]!)).toMatchObject({ type: 'run', runId: 'r2' });
    expect(JSON.parse(lines[3]!)).toMatchObject({ type: 'attempt' });
    expect(lines[4]).toBe('');
    // A file that ends on a whole line gets no blank line.
    const sink2 = new JsonlAuditSink(file);
    sink2.recordAttempt(row({}));
    sink2.close();
    expect(fs.readFileSync(file, 'utf8').split('\n').filter((l) => l === '')).toEqual(['']);
  });

  it('a full disk (/dev/full) is a disk-full AuditWriteError', () => {
    if (!fs.existsSync('/dev/full')) return;
    const sink = new JsonlAuditSink('/dev/full');
    expect(() => sink.recordAttempt(row({}))).toThrow(/disk is full/);
    sink.close();
  });
});
