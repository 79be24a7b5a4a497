// Saving fetched documents under --out at their documentPath, with their sha256.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { COLLISION, PLACEMENT_TRIES, placementPath, resolveInside } from './document-path.js';
import { DocumentWriter, type PlaceResult } from './document-writer.js';

/** The output directory could not be written (disk full, read-only, …): the crawl cannot go on.
 *  code `ERR_OUTPUT_WRITE`. */
export class OutputWriteError extends Error {
  readonly code = 'ERR_OUTPUT_WRITE';
  constructor(
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutputWriteError';
  }
}

/** Every path a document may take is held by other content (a hostile site can arrange that: a
 *  URL `/_conflicts` plus two URLs sharing a path). That costs this document, not the crawl.
 *  code `ERR_DOCUMENT_UNPLACEABLE`. */
export class DocumentPlacementError extends Error {
  readonly code = 'ERR_DOCUMENT_UNPLACEABLE';
  constructor(
    message: string,
    /** The paths tried, relative to the output directory. */
    readonly tried: readonly string[],
  ) {
    super(message);
    this.name = 'DocumentPlacementError';
  }
}

export interface SavedDocument {
  /** Relative to the output directory, `/`-separated. */
  readonly savedPath: string;
  /** sha256 of the body, lowercase hex. */
  readonly sha256: string;
}

// The callback API, promisified: fs/promises opens a FileHandle per file (an object with a
// finaliser), a cost paid per document.
const writeFile = promisify(fs.writeFile);
const readFile = promisify(fs.readFile);
const mkdir = promisify(fs.mkdir);
const rm = (p: string) => promisify(fs.rm)(p, { force: true });


/**
 * Save `body` for `url` under `outDir`. A file already there is never overwritten with other
 * content: an audit row names its saved path and sha256, and that must stay true. Different URLs
 * can share a path once made safe (`/` and `/index.html`; `/a%2Fb` and `/a_b`; `/%2e%2e` and
 * `/_..`), and a URL fetched again may have changed: the later document then goes to the URL's
 * conflict path, or, taken too, that path plus its content hash. Placed by the process's writer
 * thread (document-writer.ts), or in this thread when it has none; `body` is copied, not taken.
 * @throws TypeError when `url` is not an absolute URL.
 * @throws DocumentPlacementError when every one of those paths holds other content.
 * @throws OutputWriteError when the file system refuses (ENOSPC, EROFS, EACCES, …).
 */
export async function saveDocument(outDir: string, url: string, body: Uint8Array): Promise<SavedDocument> {
  // Refused here, as it always was, rather than as a file system error from the thread (canParse:
  // no URL object made for a check).
  if (!URL.canParse(url)) new URL(url);
  return documentWriter.save(outDir, url, body);
}

/** saveDocument in this thread, with the libuv pool's calls: the writer thread's fallback. */
async function saveInThread(outDir: string, url: string, body: Uint8Array): Promise<SavedDocument> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  const u = new URL(url);
  const tried: string[] = [];
  for (let i = 0; i < PLACEMENT_TRIES; i++) {
    const rel = placementPath(u, i, tried, sha256);
    tried.push(rel);
    try {
      if (await writeNew(outDir, rel, body)) return { savedPath: rel, sha256 };
    } catch (err) {
      if (!COLLISION.has((err as { code?: string }).code ?? '')) throw outputError(err, outDir, rel);
    }
  }
  throw unplaceable(tried);
}

// A file where a directory is needed (a URL `/_conflicts` saved as a file) closes both
// conflict paths: only a hostile layout does that, and it must not end the crawl.
function unplaceable(tried: string[]): DocumentPlacementError {
  return new DocumentPlacementError(`not saved: every path for it is taken by other content (${tried.join(', ')})`, tried);
}

/** The writer thread's result as saveDocument's: its errors rebuilt, `code` and all. */
function settle(r: PlaceResult, outDir: string): SavedDocument {
  if ('savedPath' in r) return { savedPath: r.savedPath, sha256: r.sha256 };
  if ('tried' in r) throw unplaceable(r.tried);
  const { name, message, ...fields } = r.error;
  const err = new Error(message);
  err.name = name;
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) Object.assign(err, { [k]: v });
  throw outputError(err, outDir, r.rel);
}

/** Write `body` at `rel` unless a file is there: true when written or already holding exactly
 *  these bytes, false when it holds others. The bytes go to a temporary name in the same folder
 *  first and are renamed into place whole, so a failed write (a full disk, a kill) leaves nothing at
 *  the document's path. No file is ever replaced: the crawl lock keeps other writers out of --out,
 *  this process places one document at a path at a time, and a path already taken is seen first.
 *  @throws ENOTDIR/EISDIR and real failures. */
async function writeNew(outDir: string, rel: string, body: Uint8Array): Promise<boolean> {
  const full = resolveInside(outDir, rel);
  // Two saves to one path in this process: the later one waits, then finds the path taken.
  for (let busy = placing.get(full); busy !== undefined; busy = placing.get(full)) await busy;
  const placed = place(full, body);
  const done = placed.then(noop, noop);
  placing.set(full, done);
  try {
    return await placed;
  } finally {
    placing.delete(full);
  }
}

/** Paths being placed by this process, and when each is done. */
const placing = new Map<string, Promise<void>>();
const noop = () => {};

/**
 * The calls that allocate on disk (the folder, the new file: an inode each, which ext4 can take
 * hundreds of microseconds to find after many deletions) go to the thread pool, so the main thread
 * goes on meanwhile; the two that only look up or move a name (lstat, rename: microseconds) are
 * made in place, since each trip through the pool woke a pool thread that took the main thread's
 * CPU on this 2-core machine, then a callback and a promise to come back.
 */
async function place(full: string, body: Uint8Array): Promise<boolean> {
  if (fs.lstatSync(full, { throwIfNoEntry: false }) === undefined) {
    const dir = path.dirname(full);
    const tmp = path.join(dir, tmpName());
    try {
      await writeTemp(dir, tmp, body);
      // One rename instead of a link and an unlink: a third of the file-system calls of a saved
      // document. Synchronous, after the write's await: no other save placed this path meanwhile
      // (the placing map), and nothing else of this process runs between the call and its return.
      fs.renameSync(tmp, full);
      return true;
    } catch (err) {
      // A write cut short (a full disk) may have left part of the temporary file.
      await rm(tmp).catch(noop);
      throw err;
    }
  }
  const there = await readFile(full).catch(() => undefined);
  return there !== undefined && Buffer.from(body.buffer, body.byteOffset, body.byteLength).equals(there);
}

/** Temporary names: random per process, and counted, so no random draw is paid per document. A
 *  URL that names `.~rg-…` is saved as `_.~rg-…` (document-path.ts): no document is one of them. */
const TMP_PREFIX = `.~rg-${process.pid}-${randomBytes(8).toString('hex')}-`;
let tmpCount = 0;
const tmpName = () => `${TMP_PREFIX}${++tmpCount}.part`;
const TMP_NAME = /^\.~rg-(\d+)-[0-9a-f]{16}-\d+\.part$/;

/**
 * Remove the temporary files (`.~rg-PID-….part`) that a crawl killed mid-write (SIGKILL, a crash)
 * left anywhere under `outDir`, those of processes no longer running only: a live crawl (another
 * --worker into the same --out) keeps its own. A walk of the whole tree, so for after a run that did
 * not end cleanly. Never throws: what cannot be read or removed is left (a `.part` name is never a
 * document's path).
 * @returns how many were removed.
 */
export function removeStaleTemporaries(outDir: string): number {
  let names: string[];
  try {
    names = fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' });
  } catch {
    return 0;
  }
  const alive = new Map<number, boolean>();
  let removed = 0;
  for (const rel of names) {
    const m = TMP_NAME.exec(path.basename(rel));
    if (m === null) continue;
    const pid = Number(m[1]);
    let live = alive.get(pid);
    if (live === undefined) alive.set(pid, (live = isRunning(pid)));
    if (live) continue;
    try {
      fs.unlinkSync(path.join(outDir, rel));
      removed++;
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has that id; it is running.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Folders made (or found) by this process: a crawl saves many documents per folder, and a mkdir
 *  per document (with its lstat walk) was a tenth of a fast crawl's time. Bounded: past the cap it
 *  starts again, which costs only mkdir calls. */
const madeDirs = new Set<string>();
const MADE_DIRS_MAX = 100_000;

/** Write the temporary file, making its folder first unless this process already has. */
async function writeTemp(dir: string, tmp: string, body: Uint8Array): Promise<void> {
  if (!madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true });
    if (madeDirs.size >= MADE_DIRS_MAX) madeDirs.clear();
    madeDirs.add(dir);
  }
  try {
    await writeFile(tmp, body, { flag: 'wx' });
  } catch (err) {
    // The folder went away since (removed by hand mid-crawl): make it again, once.
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    madeDirs.delete(dir);
    await mkdir(dir, { recursive: true });
    await writeFile(tmp, body, { flag: 'wx' });
  }
}

function outputError(err: unknown, outDir: string, rel: string): OutputWriteError {
  const code = (err as { code?: string }).code ?? '';
  const why =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full'
      : code === 'EROFS' || code === 'EACCES' || code === 'EPERM'
        ? 'it is read-only'
        : ((err as Error).message ?? String(err));
  return new OutputWriteError(`cannot save a document under ${outDir} (${rel}): ${why}${code ? ` (${code})` : ''}`, outDir, { cause: err });
}

// From dist the thread is the .js beside this file. Under vitest this file is src's .ts, and this
// Node cannot run a .ts thread: the build's is used (run `npm run build` first, as the CLI tests
// need anyway). Built from a variable, so vite does not take the URL for an asset of its own.
const here = import.meta.url;
const threadUrl = here.endsWith('.ts') ? new URL('../../dist/crawl/document-writer-thread.js', here) : new URL('./document-writer-thread.js', here);

/** Start the process's document writer ahead of the first save (a crawl about to save documents
 *  calls this before its set-up, which then hides the thread's boot). */
export function startDocumentWriter(): void {
  documentWriter.start();
}

/** The process's document writer. Internal: not exported by the package; tests terminate it
 *  (`documentWriter.terminate()`) to check that saves in hand fall back whole. */
export const documentWriter = new DocumentWriter<SavedDocument>(threadUrl, { inThread: saveInThread, settle, tmpName });
