// `robots-gate audit DIR` as a subprocess, over audit files written by the real SQLite sink
// (two workers' files, read as one).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import type { AttemptRow } from '../../src/audit/types.js';
import { attemptRow } from '../helpers/attempt-rows.js';
import { assertBuilt, runCli } from './run-cli.js';

const V1 = 'User-agent: *\nDisallow: /private\n';
const V2 = 'User-agent: *\nDisallow: /private\nDisallow: /late\n';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
let dir: string;

const row = (over: Partial<AttemptRow>): AttemptRow =>
  attemptRow({ runId: 'run-1', startedAt: '2026-01-01T00:00:01.000Z', endedAt: '2026-01-01T00:00:01.050Z', bytes: 5, policySha256: sha(V1), ...over });

beforeAll(() => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-'));
  const w1 = new SqliteAuditSink(path.join(dir, 'audit-w1.sqlite'));
  const w2 = new SqliteAuditSink(path.join(dir, 'audit-w2.sqlite'));
  for (const [w, name] of [[w1, 'w1'], [w2, 'w2']] as const) {
    w.recordRun({ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: name });
    w.recordPolicy({ sha256: sha(V1), origin: 'http://a.test', robotsUrl: 'http://a.test/robots.txt', finalUrl: 'http://a.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: V1 });
  }
  w1.recordAttempt(row({ url: 'http://a.test/one' }));
  w2.recordAttempt(row({ url: 'http://a.test/private/a', outcome: 'blocked', status: null, reason: 'disallowed-by-rule', ruleLine: 2, rulePattern: '/private', startedAt: '2026-01-01T00:00:02.000Z' }));
  w2.recordPolicy({ sha256: sha(V2), origin: 'http://a.test', robotsUrl: 'http://a.test/robots.txt', finalUrl: 'http://a.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:03.000Z', sitemaps: [], body: V2 });
  w2.recordPolicyChange({ runId: 'run-1', origin: 'http://a.test', oldSha256: sha(V1), newSha256: sha(V2), at: '2026-01-01T00:00:03.000Z' });
  w1.recordAttempt(row({ url: 'http://a.test/late/1', outcome: 'blocked', status: null, reason: 'disallowed-by-rule', ruleLine: 3, rulePattern: '/late', policySha256: sha(V2), startedAt: '2026-01-01T00:00:04.000Z', intervalMs: 2100, waitReason: 'floor' }));
  w1.recordRunEnd({ runId: 'run-1', endedAt: '2026-01-01T00:01:00.000Z', status: 'completed', counts: {}, error: null });
  w1.close();
  w2.close();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('robots-gate audit', () => {
  it('lists runs and hosts over every worker file', async () => {
    const r = await runCli(['audit', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/audit-w1\.sqlite, audit-w2\.sqlite/);
    expect(r.stdout).toMatch(/run-1\s+w1\s+\S+\s+completed/);
    expect(r.stdout).toMatch(/run-1\s+w2\s+\S+\s+unfinished/);
    // rows, URLs, then the URLs by how they settled: fetched, blocked, skipped, error.
    expect(r.stdout).toMatch(/a\.test\s+3\s+3\s+1\s+2\s+0\s+0\s+2\s+2100 ms \(floor\)/);
    const json = await runCli(['audit', dir, '--json']);
    const objs = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(objs.filter((o) => o.type === 'run')).toHaveLength(2);
    expect(objs.find((o) => o.type === 'host')).toMatchObject({ host: 'a.test', attempts: 3, policyVersions: 2 });
  });

  it('counts URLs by how they settled beside the rows: a 503 retried into a 200 is one URL fetched, no error', async () => {
    // As the crawl summary and the report count them; a new user read "error 0" in the summary
    // and "error 2" here for the same crawl.
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-retry-'));
    try {
      const w = new SqliteAuditSink(path.join(d, 'audit.sqlite'));
      w.recordRun({ runId: 'run-r', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      w.recordPolicy({ sha256: sha(V1), origin: 'http://r.test', robotsUrl: 'http://r.test/robots.txt', finalUrl: 'http://r.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: V1 });
      const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
      for (const [url, s] of [['http://r.test/busy', 1], ['http://r.test/limit', 2]] as const) {
        w.recordAttempt(row({ runId: 'run-r', url, host: 'r.test', outcome: 'error', status: 503, reason: 'http-503', final: false, startedAt: at(s), endedAt: at(s) }));
        w.recordAttempt(row({ runId: 'run-r', url, host: 'r.test', attempt: 2, startedAt: at(s + 4), endedAt: at(s + 4) }));
      }
      w.recordRunEnd({ runId: 'run-r', endedAt: '2026-01-01T00:01:00.000Z', status: 'completed', counts: {}, error: null });
      w.close();
      const r = await runCli(['audit', d]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/run-r\s+-\s+\S+\s+completed\s+4\s+2\s+2\s+0\s+0\s+0\s/);
      expect(r.stdout).toMatch(/r\.test\s+4\s+2\s+2\s+0\s+0\s+0\s+1\s/);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('a host timeline puts the policy change between the attempts it separates', async () => {
    const r = await runCli(['audit', dir, '--host', 'a.test']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').slice(1);
    expect(lines.map((l) => (l.includes('POLICY CHANGE') ? 'change' : l.match(/(http\S+)/)![1]))).toEqual(['http://a.test/one', 'http://a.test/private/a', 'change', 'http://a.test/late/1']);
  });

  it("a host timeline names a row's kind and the error the browser or fetcher gave", async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-err-'));
    try {
      const w = new SqliteAuditSink(path.join(d, 'audit.sqlite'));
      w.recordRun({ runId: 'run-e', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      w.recordAttempt(row({ runId: 'run-e', url: 'http://b.test/app.js', host: 'b.test', kind: 'subresource', outcome: 'error', status: null, reason: 'network-error', error: 'net::ERR_CONNECTION_RESET' }));
      w.close();
      const r = await runCli(['audit', d, '--host', 'b.test']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/http:\/\/b\.test\/app\.js \[subresource\] .*error: net::ERR_CONNECTION_RESET/);
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('--blocked shows each blocked URL with its rule; --changes both hashes', async () => {
    const b = await runCli(['audit', dir, '--blocked']);
    expect(b.stdout).toMatch(/http:\/\/a\.test\/private\/a\s+disallowed-by-rule\s+2\s+\/private/);
    expect(b.stdout).toMatch(/http:\/\/a\.test\/late\/1\s+disallowed-by-rule\s+3\s+\/late/);
    const c = await runCli(['audit', dir, '--changes']);
    expect(c.stdout).toContain(sha(V1));
    expect(c.stdout).toContain(sha(V2));
  });

  it('--verify re-decides blocked rows from the stored text, and flags one that does not check out', async () => {
    const ok = await runCli(['audit', dir, '--verify']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^3 stamped attempts checked against 2 stored policies; 2 texts re-hash to their key exactly$/m);
    // Rows without a stamp are counted, not passed over in silence (a new user counted 33 of 53).
    const mixed = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-mixed-'));
    try {
      const s = new SqliteAuditSink(path.join(mixed, 'audit.sqlite'));
      s.recordRun({ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      s.recordPolicy({ sha256: sha(V1), origin: 'http://a.test', robotsUrl: 'http://a.test/robots.txt', finalUrl: 'http://a.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: V1 });
      s.recordAttempt(row({ url: 'http://a.test/public' }));
      s.recordAttempt(row({ url: 'http://gone.test/x', host: 'gone.test', policySha256: null, robotsUrl: 'http://gone.test/robots.txt', policyStatus: 404, reason: 'unavailable' }));
      s.close();
      const m = await runCli(['audit', mixed, '--verify']);
      expect(m.code, m.stdout).toBe(0);
      expect(m.stdout).toMatch(/^1 stamped attempts checked against 1 stored policies/m);
      expect(m.stdout).toMatch(/^1 more row has no stamp to re-decide from \(robots\.txt unavailable or unreachable/m);
      const j = await runCli(['audit', mixed, '--verify', '--json']);
      expect(JSON.parse(j.stdout.trim().split('\n').pop()!)).toMatchObject({ stampsChecked: 1, unstamped: 1, problems: [] });
    } finally {
      fs.rmSync(mixed, { recursive: true, force: true });
    }
    // A row claiming a rule the stored text does not have is caught.
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-bad-'));
    try {
      const s = new SqliteAuditSink(path.join(bad, 'audit.sqlite'));
      s.recordRun({ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      s.recordPolicy({ sha256: sha(V1), origin: 'http://a.test', robotsUrl: 'http://a.test/robots.txt', finalUrl: 'http://a.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: V1 });
      s.recordAttempt(row({ url: 'http://a.test/public', outcome: 'blocked', reason: 'disallowed-by-rule', ruleLine: 2 }));
      s.recordAttempt(row({ url: 'http://a.test/y', policySha256: 'f'.repeat(64) }));
      // A row appended by hand saying a URL its stamped policy disallows was fetched: the
      // database takes appends, so the proof is the re-decision (it passed as checked out).
      s.recordAttempt(row({ url: 'http://a.test/private/forged' }));
      // Sent under override: the text disallows it, and the row says why it went. The run did not
      // record which hosts it overrode: the row is taken at its word.
      s.recordAttempt(row({ url: 'http://a.test/private/over', outcome: 'overridden', reason: 'overridden' }));
      // Forgeries that do not add up, each caught: no stamp where robots.txt answered 200; a run
      // the audit does not hold; another origin's permissive robots.txt as the stamp; an override
      // of a host the run did not override.
      s.recordAttempt(row({ url: 'http://a.test/private/nostamp', policySha256: null }));
      s.recordAttempt(row({ url: 'http://a.test/private/ghost', runId: 'ghost-run' }));
      s.recordPolicy({ sha256: sha('User-agent: *\nAllow: /\n'), origin: 'http://b.test', robotsUrl: 'http://b.test/robots.txt', finalUrl: 'http://b.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: 'User-agent: *\nAllow: /\n' });
      s.recordAttempt(row({ url: 'http://a.test/private/other', policySha256: sha('User-agent: *\nAllow: /\n'), robotsUrl: 'http://b.test/robots.txt' }));
      s.recordRun({ runId: 'run-ov', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: { override: ['o.test'] }, resumeOf: null, worker: null });
      s.recordAttempt(row({ runId: 'run-ov', url: 'http://a.test/private/notover', outcome: 'overridden', reason: 'overridden' }));
      // Not forgeries: an overridden host's 503 (an error row, no override mark), and a page sent
      // where robots.txt was a 404 (no stamp to check).
      s.recordAttempt(row({ runId: 'run-ov', url: 'http://o.test/private/busy', host: 'o.test', robotsUrl: 'http://o.test/robots.txt', outcome: 'error', status: 503, reason: 'http-503' }));
      s.recordAttempt(row({ url: 'http://c.test/page', host: 'c.test', policySha256: null, robotsUrl: 'http://c.test/robots.txt', policyStatus: 404 }));
      s.close();
      const r = await runCli(['audit', bad, '--verify']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/public: re-deciding from the stored text gives allowed, the row says line 2/);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/y: policy f{64} is not stored/);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/private\/forged: sent \(fetched\), but the stored text disallows it: line 2 "\/private"/);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/private\/nostamp: sent \(fetched\) without a policy stamp, robots\.txt status 200/);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/private\/ghost: sent \(fetched\) in run ghost-run, which the audit does not hold/);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/private\/other: stamped with http:\/\/b\.test\/robots\.txt, the robots\.txt of another origin/);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/private\/notover: overridden, but run run-ov overrode no such host/);
      expect(r.stdout).not.toMatch(/private\/over:|private\/busy|c\.test\/page/);
      expect(r.stdout).toMatch(/^7 problems$/m);
      expect(r.stdout.match(/private\/notover/g)).toHaveLength(1);
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  });

  it('--verify explains the texts that do not re-hash only when there are some', async () => {
    const latin1 = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-latin1-'));
    try {
      const s = new SqliteAuditSink(path.join(latin1, 'audit.sqlite'));
      s.recordRun({ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      s.recordPolicy({ sha256: sha(V1), origin: 'http://a.test', robotsUrl: 'http://a.test/robots.txt', finalUrl: 'http://a.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: V1 });
      // Keyed by the hash of bytes that were not UTF-8, so the stored (decoded) text hashes otherwise.
      const key = createHash('sha256').update(Buffer.from('User-agent: *\nDisallow: /caf\xe9\n', 'latin1')).digest('hex');
      s.recordPolicy({ sha256: key, origin: 'http://b.test', robotsUrl: 'http://b.test/robots.txt', finalUrl: 'http://b.test/robots.txt', status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body: 'User-agent: *\nDisallow: /caf%E9\n' });
      s.recordAttempt(row({ url: 'http://a.test/one' }));
      s.recordAttempt(row({ url: 'http://b.test/one', host: 'b.test', policySha256: key, robotsUrl: 'http://b.test/robots.txt' }));
      s.close();
      const r = await runCli(['audit', latin1, '--verify']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^2 stamped attempts checked against 2 stored policies; 1 texts re-hash to their key exactly, 1 once re-encoded as the octets they were decoded from \(UTF-16 or invalid UTF-8 on the wire\)$/m);
    } finally {
      fs.rmSync(latin1, { recursive: true, force: true });
    }
  });

  it('--verify fails on a stored text that was altered, and reads back UTF-16 and mixed invalid UTF-8 files', async () => {
    const edited = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-edited-'));
    try {
      const s = new SqliteAuditSink(path.join(edited, 'audit.sqlite'));
      s.recordRun({ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      const policy = (host: string, key: string, body: string) =>
        s.recordPolicy({ sha256: key, origin: `http://${host}`, robotsUrl: `http://${host}/robots.txt`, finalUrl: `http://${host}/robots.txt`, status: 200, fetchedAt: '2026-01-01T00:00:00.000Z', sitemaps: [], body });
      // The key of V1, the text with one comment added after the fetch: what an edit of the file looks like.
      policy('a.test', sha(V1), V1 + '# x\n');
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(V1, 'utf16le')]);
      policy('c.test', createHash('sha256').update(utf16).digest('hex'), V1);
      // A Latin-1 octet beside a literal escape of valid UTF-8, which the decoder leaves as written.
      const mixed = Buffer.concat([Buffer.from('User-agent: *\nDisallow: /caf'), Buffer.from([0xe9]), Buffer.from('\nDisallow: /%C3%A9t\n')]);
      policy('d.test', createHash('sha256').update(mixed).digest('hex'), 'User-agent: *\nDisallow: /caf%E9\nDisallow: /%C3%A9t\n');
      for (const [host, key] of [['a.test', sha(V1)], ['c.test', createHash('sha256').update(utf16).digest('hex')], ['d.test', createHash('sha256').update(mixed).digest('hex')]])
        s.recordAttempt(row({ url: `http://${host}/one`, host, policySha256: key, robotsUrl: `http://${host}/robots.txt` }));
      s.close();
      const r = await runCli(['audit', edited, '--verify']);
      expect(r.stdout).toMatch(/PROBLEM\s+http:\/\/a\.test\/robots\.txt: the stored text of policy [0-9a-f]{64} does not hash to its key/);
      expect(r.stdout).toMatch(/0 texts re-hash to their key exactly, 2 once re-encoded/);
      expect(r.stdout).toMatch(/^1 problems$/m);
      expect(r.code).toBe(1);
    } finally {
      fs.rmSync(edited, { recursive: true, force: true });
    }
  });

  it('a --host with no rows says so on stderr, names the audited hosts that contain it, and exits 4', async () => {
    const ports = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-ports-'));
    try {
      const s = new SqliteAuditSink(path.join(ports, 'audit.sqlite'));
      s.recordRun({ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
      for (const host of ['shop.test:18081', 'shop.test:18082', 'blog.test:18083'])
        s.recordAttempt(row({ url: `http://${host}/`, host, policySha256: null, robotsUrl: null, policyFetchedAt: null, policyStatus: null }));
      s.close();
      const r = await runCli(['audit', ports, '--host', 'Shop.test']);
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('robots-gate audit: no rows for host "Shop.test"; did you mean shop.test:18081, shop.test:18082?\n');
      const json = await runCli(['audit', ports, '--host', 'nowhere.test', '--json']);
      expect(json.code).toBe(4);
      expect(json.stdout).toBe('');
      expect(json.stderr).toBe('robots-gate audit: no rows for host "nowhere.test"\n');
      const found = await runCli(['audit', ports, '--host', 'shop.test:18081']);
      expect(found.code).toBe(0);
      expect(found.stderr).toBe('');
      expect(found.stdout).toMatch(/^timeline of shop\.test:18081 \(1 entries\)$/m);
    } finally {
      fs.rmSync(ports, { recursive: true, force: true });
    }
  });

  it('a DIR without an audit exits 3', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-auditcli-empty-'));
    try {
      const r = await runCli(['audit', empty]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/no audit\*\.sqlite file/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
