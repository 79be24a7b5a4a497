// Reading an audit from read-only media (a read-only mount, an archive, a CD): `audit DIR` and
// `report DIR --html F` must not need write access, and must say when a write-ahead log left
// unmerged could not be read.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { attemptRow } from '../helpers/attempt-rows.js';
import { canMountTmpfs } from '../helpers/tmpfs.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const dirs: string[] = [];
const mounts: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-ro-audit-'));
  dirs.push(d);
  return d;
};
beforeAll(assertBuilt);
afterEach(() => {
  for (const m of mounts.splice(0)) execFileSync('umount', ['-l', m]);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** `src` seen read-only at a new path (a read-only bind mount: writes fail with EROFS). */
function readOnlyView(src: string): string {
  const view = path.join(tmp(), 'ro');
  fs.mkdirSync(view);
  execFileSync('mount', ['--bind', src, view]);
  mounts.push(view);
  execFileSync('mount', ['-o', 'remount,bind,ro', view]);
  return view;
}

/** Rows per host, from `audit DIR --json`. */
const hostRows = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; host: string; attempts: number })
      .filter((o) => o.type === 'host')
      .map((o) => [o.host, o.attempts]),
  );
/** A writer that has not closed its audit: 3 rows merged into the database, 2 only in the -wal. */
function liveAudit(): { dir: string; sink: SqliteAuditSink } {
  const dir = tmp();
  const file = path.join(dir, 'audit.sqlite');
  const sink = new SqliteAuditSink(file);
  writeRows(sink, urls(3));
  const other = new Database(file);
  other.pragma('wal_checkpoint(PASSIVE)');
  other.close();
  writeRows(sink, urls(2, 3));
  return { dir, sink };
}
const urls = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `http://ro.test/p${from + i}`);
function writeRows(sink: SqliteAuditSink, list: string[]): void {
  for (const url of list) sink.recordAttempt(attemptRow({ url, host: 'ro.test', final: true }));
}

describe.skipIf(!canMountTmpfs)('an audit on read-only media', () => {
  it('a closed audit: audit and report read it, and nothing is written beside it', async () => {
    const src = tmp();
    const sink = new SqliteAuditSink(path.join(src, 'audit.sqlite'));
    writeRows(sink, urls(3));
    sink.close();
    const ro = readOnlyView(src);
    expect(() => fs.writeFileSync(path.join(ro, 'probe'), '')).toThrow(/EROFS/);

    const a = await runCli(['audit', ro, '--json']);
    expect(a.stderr).not.toMatch(/unable to open/);
    expect(a.code, a.stderr).toBe(0);
    expect(hostRows(a.stdout)).toEqual({ 'ro.test': 3 });
    expect(a.stderr).not.toMatch(/note:/);

    const html = path.join(tmp(), 'report.html');
    const r = await runCli(['report', ro, '--html', html]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(html, 'utf8')).toContain('ro.test');
    expect(fs.readdirSync(src)).toEqual(['audit.sqlite']);
  });

  it('an audit whose writer never closed it: rows still in its -wal are named as missing', async () => {
    const live = liveAudit();
    // What an archive of a killed crawl holds: the database and its log, no -shm.
    const src = tmp();
    for (const f of ['audit.sqlite', 'audit.sqlite-wal']) fs.copyFileSync(path.join(live.dir, f), path.join(src, f));
    live.sink.close();
    const ro = readOnlyView(src);

    const a = await runCli(['audit', ro, '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(hostRows(a.stdout)).toEqual({ 'ro.test': 3 });
    expect(a.stderr).toMatch(/note: audit\.sqlite-wal \(\d+ bytes\) was left unmerged .*: the rows in it are missing here/);
    const html = path.join(tmp(), 'report.html');
    const r = await runCli(['report', ro, '--html', html]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: audit\.sqlite-wal .* left unmerged/);
  });

  it('with its -shm too, the rows in the -wal are read in place', async () => {
    const live = liveAudit();
    const src = tmp();
    for (const f of ['audit.sqlite', 'audit.sqlite-wal', 'audit.sqlite-shm']) fs.copyFileSync(path.join(live.dir, f), path.join(src, f));
    live.sink.close();
    const ro = readOnlyView(src);
    const a = await runCli(['audit', ro, '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(hostRows(a.stdout)).toEqual({ 'ro.test': 5 });
    expect(a.stderr).not.toMatch(/note:/);
  });

  it('every row still in the -wal: exit 3, saying why and what to do', async () => {
    const live = tmp();
    const sink = new SqliteAuditSink(path.join(live, 'audit.sqlite'));
    writeRows(sink, urls(2));
    const src = tmp();
    for (const f of ['audit.sqlite', 'audit.sqlite-wal']) fs.copyFileSync(path.join(live, f), path.join(src, f));
    sink.close();
    const a = await runCli(['audit', readOnlyView(src)]);
    expect(a.code).toBe(3);
    expect(a.stderr).toMatch(/left unmerged .* every row is in it\. Copy the directory to writable storage/);
  });
});
