// Bad input to `robots-gate crawl`: a clear message, a non-zero exit where the run cannot go on,
// and the audit rows already written intact.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from './run-cli.js';
import { canMountTmpfs } from '../helpers/tmpfs.js';

const UA = 'TestBot/1.0';
let servers: VirtualHosts[] = [];
const dirs: string[] = [];
const mounts: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-bad-'));
  dirs.push(d);
  return d;
};
beforeAll(assertBuilt);
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  for (const m of mounts.splice(0)) execFileSync('umount', ['-l', m]);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
async function hosts(map: Parameters<typeof startVirtualHosts>[0]): Promise<VirtualHosts> {
  const v = await startVirtualHosts(map);
  servers.push(v);
  return v;
}
const resolveArgs = (v: VirtualHosts) => v.resolve.flatMap((r) => ['--resolve', r]);
const write = (dir: string, name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

const mountTmpfs = (dir: string, opts: string) => {
  execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir]);
  mounts.push(dir);
};

describe('robots-gate crawl on bad input', () => {
  it('garbage lines and unknown schemes are reported, audited and skipped; the rest is crawled', async () => {
    const v = await hosts({ 'ok.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const list = write(dir, 'urls.txt', ['garbage ☃ line', '\u0000\u0001\u0002', 'ftp://ok.test/file', 'javascript:alert(1)', `${v.origin('ok.test')}/fine`, 'http://', '# comment', ''].join('\n'));
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '0', ...resolveArgs(v)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 1: not a URL: garbage/);
    expect(r.stderr).toMatch(/line 3: unsupported scheme \(only http and https\): ftp:\/\/ok\.test\/file/);
    expect(v.requests('ok.test', '/fine')).toHaveLength(1);
    // The summary counts them where they are: in the skipped row, and says so there.
    expect(r.stdout).toMatch(/1 URL settled .*\(5 input lines skipped/);
    expect(r.stdout).toMatch(/skipped \(5 of them input lines that are not URLs\) +5/);
    const a = openAudit(out);
    const skipped = a.attempts({ outcome: 'skipped' });
    a.close();
    expect(skipped.map((s) => s.reason).sort()).toEqual(['invalid-url', 'invalid-url', 'invalid-url', 'unsupported-scheme', 'unsupported-scheme']);
  });

  it('a list with no URL at all, a missing list, a bad option: exit 2 with a clear message', async () => {
    const dir = tmp();
    const r1 = await runCli(['crawl', write(dir, 'g.txt', 'nothing here\nstill nothing\n'), '--user-agent', UA, '--out', path.join(dir, 'o1')]);
    expect([r1.code, r1.stderr]).toEqual([2, expect.stringMatching(/no URL to crawl in .*g\.txt: 2 lines, none an http\(s\) URL\n/)]);
    // Comments and blank lines are counted among the lines read: "0 lines" said of a list that had one.
    const said = async (stdin: string) => (await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'o0')], { stdin })).stderr;
    expect(await said('# x\n')).toBe('robots-gate crawl: no URL to crawl in the input: 1 line, all comments or blank\n');
    expect(await said('# x\nnot a url\n\n')).toMatch(/no URL to crawl in the input: 3 lines: 1 not an http\(s\) URL, the rest comments or blank\n$/);
    expect(await said('')).toBe('robots-gate crawl: no URL to crawl in the input: it is empty\n');
    // More junk lines than are named, and no URL: no audit is written, and none is promised.
    const junk = await said(Array.from({ length: 12 }, (_, i) => `junk ${i}`).join('\n') + '\n');
    expect(junk).toMatch(/… and 2 more lines that are not URLs\n/);
    expect(junk).not.toMatch(/all in the audit/);
    expect(fs.existsSync(path.join(dir, 'o0'))).toBe(false);
    const r2 = await runCli(['crawl', path.join(dir, 'missing.txt'), '--user-agent', UA, '--out', path.join(dir, 'o2')]);
    expect([r2.code, r2.stderr]).toEqual([2, expect.stringMatching(/cannot read the URL list .*: there is no such file or directory/)]);
    const r3 = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'o3'), '--concurrency', '0'], { stdin: 'http://a.test/\n' });
    expect([r3.code, r3.stderr]).toEqual([2, expect.stringMatching(/--concurrency must be a number >= 1/)]);
    const r4 = await runCli(['crawl', '-', '--user-agent', 'my.bot/1.0', '--out', path.join(dir, 'o4')], { stdin: 'http://a.test/\n' });
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(/product token|user.?agent/i);
    const r5 = await runCli(['crawl', '-', '--out', path.join(dir, 'o5')], { stdin: '' });
    expect(r5.code).toBe(2);
    expect(r5.stderr).toMatch(/--user-agent/);
  });

  it('a host that never answers costs --timeout and is an error row; a robots.txt that never answers blocks its host', async () => {
    const v = await hosts({
      'hang.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
        // never answers
      },
      'mute.test': () => {},
      'ok.test': site(null),
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const list = write(dir, 'u.txt', [`${v.origin('hang.test')}/x`, `${v.origin('mute.test')}/y`, `${v.origin('ok.test')}/z`].join('\n'));
    const started = Date.now();
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '0', '--timeout', '1500', '--robots-timeout', '1500', ...resolveArgs(v)]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.code).toBe(1);
    const a = openAudit(out);
    const rows = a.attempts({ kind: 'page' });
    a.close();
    const by = (h: string) => rows.find((x) => x.host.startsWith(h))!;
    expect([by('hang.test').outcome, by('hang.test').reason, by('hang.test').error]).toEqual(['error', 'network-error', expect.stringMatching(/ETIMEDOUT/)]);
    expect([by('mute.test').outcome, by('mute.test').reason]).toEqual(['blocked', 'unreachable']);
    expect(v.requests('mute.test').map((q) => q.path)).toEqual(['/robots.txt']);
    expect([by('ok.test').outcome, by('ok.test').reason]).toEqual(['fetched', 'unavailable']);
  });

  it('a 429 with Retry-After backs the host off, then the URL is retried', async () => {
    let first = true;
    const v = await hosts({
      'busy.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
        if (req.url === '/a' && first) {
          first = false;
          return void res.writeHead(429, { 'retry-after': '1' }).end('slow down');
        }
        res.end('ok');
      },
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '50', ...resolveArgs(v)], { stdin: `${v.origin('busy.test')}/a\n${v.origin('busy.test')}/b\n` });
    expect(r.code).toBe(0);
    const seen = v.requests('busy.test').filter((q) => q.path !== '/robots.txt');
    expect(seen.map((q) => q.path)).toEqual(['/a', '/a', '/b']);
    expect(seen[1]!.startedAt - seen[0]!.endedAt!).toBeGreaterThanOrEqual(1000);
    const a = openAudit(out);
    const rows = a.attempts({ url: `${v.origin('busy.test')}/a` });
    a.close();
    expect(rows.map((x) => [x.outcome, x.status, x.attempt, x.final])).toEqual([
      ['error', 429, 1, false],
      ['fetched', 200, 2, true],
    ]);
    expect(rows[1]!.waitReason).toBe('backoff');
    // The timeline says the 429 was not the URL's last word (the summary counts it as fetched).
    const timeline = await runCli(['audit', out, '--host', new URL(v.origin('busy.test')).host]);
    expect(timeline.stdout).toMatch(/error\s+429 .*\/a .*\(attempt 1, not the URL's last\)/);
    expect(timeline.stdout).toMatch(/fetched\s+200 .*\/a .*after \d+ ms \(backoff\)$/m);
  });

  it('--audit-jsonl naming a directory: exit 2 before --out is made', async () => {
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--audit-jsonl', dir], { stdin: 'http://a.test/\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--audit-jsonl .* is a directory/);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('an unwritable audit (--audit-jsonl on a full disk): exit 3 and a clear message', async () => {
    if (!fs.existsSync('/dev/full')) return;
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--audit-jsonl', '/dev/full'], { stdin: 'http://a.test/\n' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/disk is full/);
  });

  it.skipIf(!canMountTmpfs)('a disk that fills mid-crawl: every page the server sent has its row, or stderr says which rows are missing (exit 3)', async () => {
    const page = 'x'.repeat(40_000);
    const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) =>
      req.url === '/robots.txt' ? void res.end('User-agent: *\nAllow: /\n') : void res.end(page);
    const v = await hosts({ 'b1.test': handler, 'b2.test': handler, 'b3.test': handler });
    const dir = tmp();
    const out = path.join(dir, 'full');
    fs.mkdirSync(out);
    mountTmpfs(out, 'size=1500k');
    const stdin = ['b1.test', 'b2.test', 'b3.test'].flatMap((h) => Array.from({ length: 10 }, (_, i) => `${v.origin(h)}/page${i}`)).join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '0', ...resolveArgs(v)], { stdin });
    expect([3, 4]).toContain(r.code);
    expect(r.stderr).toMatch(/disk is full/);
    const sent = v.log.filter((q) => q.path !== '/robots.txt').map((q) => `${v.origin(q.host)}${q.path}`);
    const a = openAudit(out);
    const rowed = new Set(a.attempts().map((x) => x.url));
    a.close();
    const missing = sent.filter((u) => !rowed.has(u));
    if (missing.length > 0) {
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/the rows of the last requests sent are not in the audit/);
    }
  });

  it.skipIf(!canMountTmpfs)('a read-only --out: exit 4 and a clear message', async () => {
    const dir = tmp();
    const out = path.join(dir, 'ro');
    fs.mkdirSync(out);
    mountTmpfs(out, 'ro,size=64k');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out], { stdin: 'http://a.test/\n' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cannot write to --out .*(read-only|EROFS)/);
    // A folder still to be made on it: Node's recursive mkdir says ENOENT there, which read as
    // "there is no such file or directory".
    const deeper = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(out, 'run', 'one')], { stdin: 'http://a.test/\n' });
    expect(deeper.code).toBe(4);
    expect(deeper.stderr).toMatch(/cannot write to --out .*run\/one: the file system is read-only/);
  });

  it.skipIf(!canMountTmpfs)('a disk that fills mid-run: non-zero exit, a clear message, the rows written intact', async () => {
    const big = 'x'.repeat(100_000);
    const v = await hosts({ 'big.test': site('User-agent: *\nAllow: /\n', () => big) });
    const dir = tmp();
    const out = path.join(dir, 'small');
    fs.mkdirSync(out);
    mountTmpfs(out, 'size=1m');
    const list = write(dir, 'u.txt', Array.from({ length: 30 }, (_, i) => `${v.origin('big.test')}/doc${i}`).join('\n'));
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '0', ...resolveArgs(v)]);
    expect([3, 4]).toContain(r.code);
    expect(r.stderr).toMatch(/disk is full/);
    // The audit opens, passes SQLite's own integrity check, and holds a row for each request
    // the server saw up to the failure.
    const db = new Database(path.join(out, 'audit.sqlite'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const a = openAudit(out);
    const rows = a.attempts({ kind: 'page' });
    a.close();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeGreaterThanOrEqual(v.requests('big.test').filter((q) => q.path !== '/robots.txt').length - 1);
  });
});
