// Opening an audit file to read it, without writing to it or beside it: audits are read from
// read-only mounts, archives and CDs as well as from a crawl's live --out.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * Open one audit file for reading, in place when SQLite can; never writing to read-only media.
 * A WAL database needs its `-shm` file: where neither it nor the directory is writable (a
 * read-only mount, an archive, a CD), SQLite cannot open the file at all, and this build of
 * better-sqlite3 has no URI filenames (`?immutable=1`), so the file is read into memory and
 * opened from there, read-only, which is what immutable means (the whole file is held in memory
 * while the reader is open). Its `-wal` cannot be replayed that way: a note says so.
 */
export function openReadOnly(file: string): { db: Database.Database; note?: string } {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    probe(db);
    return { db };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (!code.startsWith('SQLITE_CANTOPEN') && code !== 'SQLITE_READONLY_RECOVERY') throw err;
    // A WAL database left by a killed writer may need its -shm recreated, which a read-only
    // handle cannot do; a read-write handle can, and the triggers still forbid any change.
    if (writable(path.dirname(file))) return { db: new Database(file, { fileMustExist: true }) };
    return openImmutable(file);
  }
}

function openImmutable(file: string): { db: Database.Database; note?: string } {
  const bytes = fs.readFileSync(file);
  // Header bytes 18-19 are 2 in WAL mode, which an in-memory database cannot be in; 1 (rollback
  // journal) reads the very same pages (sqlite.org/fileformat.html, "File format version numbers").
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
  const db = new Database(bytes, { readonly: true });
  const walBytes = fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const name = path.basename(file);
  const unmerged = `${name}-wal (${walBytes} bytes) was left unmerged by a writer that did not close ${name}, and on read-only media it cannot be replayed`;
  const copy = 'Copy the directory to writable storage to read them.';
  try {
    probe(db);
  } catch (err) {
    db.close();
    // A writer killed before its first checkpoint left even the tables in the log.
    if (walBytes > 0) throw new Error(`${unmerged}, and every row is in it. ${copy}`, { cause: err });
    throw err;
  }
  return walBytes === 0 ? { db } : { db, note: `${unmerged}: the rows in it are missing here. ${copy}` };
}

function probe(db: Database.Database): void {
  db.prepare('SELECT 1 FROM attempts LIMIT 1').get();
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
