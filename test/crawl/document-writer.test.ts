// Documents saved through the process's writer thread, many at once, on the real file system: the
// same paths, hashes and errors as the in-thread code gives, and a thread stopped mid-crawl loses
// and doubles nothing. The thread runs the build's file (dist/): `npm run build` first.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conflictPath, documentPath } from '../../src/crawl/document-path.js';
import { DocumentPlacementError, documentWriter, OutputWriteError, saveDocument, type SavedDocument } from '../../src/crawl/document-store.js';
import { canMountTmpfs } from '../helpers/tmpfs.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-writer-'));
  dirs.push(d);
  return d;
};
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** Every file under `dir`, relative, `/`-separated. */
const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();

type Outcome = { savedPath: string; sha256: string } | { error: string; code: string; message: string };

/** The saves, in the order asked, and where each must go: two URLs sharing a path, one URL
 *  fetched again the same and changed, a host whose conflict paths a `_conflicts` file closes
 *  (saved first, on its own), and many plain documents in shared folders. */
function saves(plain = 240): { url: string; body: Buffer; expected: string | 'unplaceable' }[] {
  const list: { url: string; body: Buffer; expected: string | 'unplaceable' }[] = [];
  const add = (url: string, body: string, expected: string | 'unplaceable') => list.push({ url, body: Buffer.from(body), expected });
  for (let i = 0; i < plain; i++) add(`http://h${i % 12}.test/dir${i % 5}/p${i}.html`, `page ${i} `.repeat(1 + (i % 50)), documentPath(`http://h${i % 12}.test/dir${i % 5}/p${i}.html`));
  add('http://c.test/', 'root', 'c.test/index.html');
  add('http://c.test/index.html', 'index', conflictPath('http://c.test/index.html'));
  const d = 'http://d.test/page';
  add(d, 'v1', documentPath(d));
  add(d, 'v1', documentPath(d));
  add(d, 'v2', conflictPath(d));
  add(d, 'v3', `${conflictPath(d)}~${sha('v3').slice(0, 16)}`);
  add(d, 'v2', conflictPath(d));
  add('http://e.test/', 'e root', 'e.test/index.html');
  add('http://e.test/index.html', 'e index', 'unplaceable');
  return list;
}

/** Save `closer` first (a file `e.test/_conflicts`), then every save of `saves()` at once. */
async function saveAll(out: string, plain?: number, onSent?: (pending: Promise<unknown>[]) => void): Promise<Outcome[]> {
  await saveDocument(out, 'http://e.test/_conflicts', Buffer.from('a file where a folder is needed'));
  const list = saves(plain);
  const pending = list.map((s) => saveDocument(out, s.url, s.body));
  onSent?.(pending);
  const settled = await Promise.allSettled(pending);
  return settled.map((r) => {
    if (r.status === 'fulfilled') return r.value;
    const e = r.reason as Error & { code: string };
    return { error: e.name, code: e.code, message: e.message.replaceAll(out, 'OUT') };
  });
}

/** Every outcome where `saves()` says; each saved file on disk holds exactly its recorded bytes;
 *  nothing else is there (no second copy, no temporary file). */
function checkAgainstDisk(out: string, outcomes: Outcome[], plain?: number): void {
  const list = saves(plain);
  outcomes.forEach((o, i) => {
    const s = list[i]!;
    if (s.expected === 'unplaceable') {
      expect(o).toMatchObject({ error: 'DocumentPlacementError', code: 'ERR_DOCUMENT_UNPLACEABLE' });
    } else {
      expect(o, s.url).toEqual({ savedPath: s.expected, sha256: sha(s.body) });
    }
  });
  const saved = new Set(outcomes.flatMap((o) => ('savedPath' in o ? [o.savedPath] : [])));
  saved.add('e.test/_conflicts');
  expect(files(out)).toEqual([...saved].sort());
  for (const o of outcomes) if ('savedPath' in o) expect(sha(fs.readFileSync(path.join(out, o.savedPath)))).toBe(o.sha256);
}

let throughThread: Outcome[] = [];

describe('the document writer thread', () => {
  it('places many concurrent saves as the in-thread code does: shared paths, conflict paths, unplaceable', async () => {
    const out = tmp();
    throughThread = await saveAll(out);
    // The thread did it: these saves did not fall back.
    expect(documentWriter.threadRunning).toBe(true);
    checkAgainstDisk(out, throughThread);
  });

  it.skipIf(!canMountTmpfs)('gives the in-thread errors: a full disk, a read-only one', async () => {
    const disk = tmp();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    try {
      const full = await saveDocument(disk, 'http://full.test/big', Buffer.alloc(300_000, 'x')).catch((e: unknown) => e);
      expect(full).toBeInstanceOf(OutputWriteError);
      expect((full as Error).message).toBe(`cannot save a document under ${disk} (full.test/big): the disk is full (ENOSPC)`);
      expect(((full as Error).cause as { code: string }).code).toBe('ENOSPC');
      expect(files(disk)).toEqual([]);
      // The host's folder made first: a recursive mkdir on a read-only mount says ENOENT (Node's,
      // in and out of a thread alike), the file's open says EROFS.
      fs.mkdirSync(path.join(disk, 'ro.test'));
      execFileSync('mount', ['-o', 'remount,ro', disk]);
      const ro = await saveDocument(disk, 'http://ro.test/a', Buffer.from('a')).catch((e: unknown) => e);
      expect(ro).toBeInstanceOf(OutputWriteError);
      expect((ro as Error).message).toBe(`cannot save a document under ${disk} (ro.test/a): it is read-only (EROFS)`);
      expect(documentWriter.threadRunning).toBe(true);
    } finally {
      execFileSync('umount', ['-l', disk]);
    }
  });

  it('stopped while it has saves in hand: each is placed in-thread, none lost, none twice', async () => {
    const out = tmp();
    // Stopped once the thread has placed some of the batch (seen on disk) and before its answer
    // is read: those it placed are found in place by the in-thread code, the rest placed there.
    let stoppedWith: { onDisk: number; answered: number } | undefined;
    let answered = 0;
    const watch = () => {
      const onDisk = files(out).length;
      if (onDisk <= 1) return void setImmediate(watch);
      stoppedWith = { onDisk, answered };
      void documentWriter.terminate();
    };
    const plain = 2_000;
    const outcomes = await saveAll(out, plain, (pending) => {
      for (const p of pending) p.then(() => answered++, () => answered++);
      setImmediate(watch);
    });
    expect(stoppedWith!.answered).toBe(0);
    expect(stoppedWith!.onDisk).toBeGreaterThan(1);
    expect(documentWriter.threadRunning).toBe(false);
    checkAgainstDisk(out, outcomes, plain);
    expect(outcomes.slice(plain)).toEqual(throughThread.slice(240));
  });

  it('with no thread any more, the in-thread code gives the same results', async () => {
    const out = tmp();
    const outcomes: Outcome[] = await saveAll(out);
    checkAgainstDisk(out, outcomes);
    expect(outcomes).toEqual(throughThread);
    const again: SavedDocument = await saveDocument(out, 'http://d.test/page', Buffer.from('v3'));
    expect(again.savedPath).toBe(`${conflictPath('http://d.test/page')}~${sha('v3').slice(0, 16)}`);
    expect(DocumentPlacementError).toBeDefined();
  });
});
