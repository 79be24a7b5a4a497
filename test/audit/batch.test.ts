// The SQLite sink in batch mode (what `robots-gate crawl` uses): rows are committed together, by
// flush() (called before each request), BATCH_MS after a row was recorded, at BATCH_ROWS pending, or on close; never lost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_MS, SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { attemptRow } from '../helpers/attempt-rows.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function dbPath(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-batch-'));
  dirs.push(d);
  return path.join(d, 'audit.sqlite');
}
/** Rows another connection (another process, after a crash) can read. */
function committed(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM attempts').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('SqliteAuditSink { batch: true }', () => {
  it('commits the pending rows at flush(), all at once', () => {
    const file = dbPath();
    const sink = new SqliteAuditSink(file, { batch: true });
    for (let i = 0; i < 5; i++) sink.recordAttempt(attemptRow({ url: `http://a.test/${i}` }));
    expect(committed(file)).toBe(0);
    sink.flush();
    expect(committed(file)).toBe(5);
    sink.flush(); // nothing pending: nothing written twice
    expect(committed(file)).toBe(5);
    sink.close();
  });

  it('flush(host) commits only when a row of that host is pending, and then every pending row', () => {
    const file = dbPath();
    const sink = new SqliteAuditSink(file, { batch: true });
    sink.recordAttempt(attemptRow({ host: 'a.test', url: 'http://a.test/1' }));
    sink.recordAttempt(attemptRow({ host: 'b.test', url: 'http://b.test/1' }));
    sink.flush('c.test'); // nothing of c.test is pending: its request may go, the rows wait
    expect(committed(file)).toBe(0);
    sink.flush('b.test');
    expect(committed(file)).toBe(2);
    sink.close();
  });

  it('commits BATCH_MS after a row was recorded, without a flush, and not at the end of its turn', async () => {
    const file = dbPath();
    const sink = new SqliteAuditSink(file, { batch: true });
    sink.recordAttempt(attemptRow());
    // The rows of many turns share a transaction: one a turn was 8 % of a fast crawl.
    await new Promise((r) => setImmediate(r));
    expect(committed(file)).toBe(0);
    await new Promise((r) => setTimeout(r, BATCH_MS + 50));
    expect(committed(file)).toBe(1);
    sink.close();
  });

  it('commits once a thousand rows are pending, without a flush', () => {
    const file = dbPath();
    const sink = new SqliteAuditSink(file, { batch: true });
    for (let i = 0; i < 999; i++) sink.recordAttempt(attemptRow({ url: `http://a.test/${i}` }));
    expect(committed(file)).toBe(0);
    sink.recordAttempt(attemptRow({ url: 'http://a.test/999' }));
    expect(committed(file)).toBe(1_000);
    sink.close();
  });

  it('close() commits what is pending, in order', () => {
    const file = dbPath();
    const sink = new SqliteAuditSink(file, { batch: true });
    for (let i = 0; i < 3; i++) sink.recordAttempt(attemptRow({ url: `http://a.test/${i}` }));
    sink.close();
    const db = new Database(file, { readonly: true });
    const urls = db.prepare('SELECT url FROM attempts ORDER BY rowid').all() as { url: string }[];
    db.close();
    expect(urls.map((u) => u.url)).toEqual(['http://a.test/0', 'http://a.test/1', 'http://a.test/2']);
  });

  it('without batch, each row is committed when recorded', () => {
    const file = dbPath();
    const sink = new SqliteAuditSink(file);
    sink.recordAttempt(attemptRow());
    expect(committed(file)).toBe(1);
    sink.close();
  });
});
