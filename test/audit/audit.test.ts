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
  it('rows are append-only: the database itself refuses UPDATE and DELETE', () => {
    const dir = tmp();
    const sink = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    sink.recordAttempt(row({}));
    sink.close();
    const db = new Database(path.join(dir, 'audit.sqlite'));
    expect(() => db.prepare("UPDATE attempts SET outcome = 'blocked'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM attempts').run()).toThrow(/append-only/);
    expect(() => db.prepare("UPDATE policies SET body = ''").run()).not.toThrow(); // no rows to touch
    db.close();
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

  it('a full disk (/dev/full) is a disk-full AuditWriteError', () => {
    if (!fs.existsSync('/dev/full')) return;
    const sink = new JsonlAuditSink('/dev/full');
    expect(() => sink.recordAttempt(row({}))).toThrow(/disk is full/);
    sink.close();
  });
});
