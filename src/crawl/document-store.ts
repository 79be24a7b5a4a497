// Saving fetched documents under --out at their documentPath, with their sha256.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { conflictPath, documentPath, resolveInside } from './document-path.js';

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

const COLLISION = new Set(['EEXIST', 'ENOTDIR', 'EISDIR']);
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Save `body` for `url` under `outDir`. A file already there is never overwritten with other
 * content: an audit row names its saved path and sha256, and that must stay true. Different URLs
 * can share a path once made safe (`/` and `/index.html`; `/a%2Fb` and `/a_b`; `/%2e%2e` and
 * `/_..`), and a URL fetched again may have changed: the later document then goes to the URL's
 * conflict path, or, taken too, that path plus its content hash.
 * @throws DocumentPlacementError when every one of those paths holds other content.
 * @throws OutputWriteError when the file system refuses (ENOSPC, EROFS, EACCES, …).
 */
export async function saveDocument(outDir: string, url: string, body: Uint8Array): Promise<SavedDocument> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  const alt = conflictPath(url);
  const tried = [documentPath(url), alt, `${alt}~${sha256.slice(0, 16)}`];
  for (const rel of tried) {
    try {
      if (await writeNew(outDir, rel, body)) return { savedPath: rel, sha256 };
    } catch (err) {
      if (!COLLISION.has((err as { code?: string }).code ?? '')) throw outputError(err, outDir, rel);
    }
  }
  // A file where a directory is needed (a URL `/_conflicts` saved as a file) closes both
  // conflict paths: only a hostile layout does that, and it must not end the crawl.
  throw new DocumentPlacementError(`not saved: every path for it is taken by other content (${tried.join(', ')})`, tried);
}

/** Write `body` at `rel` unless a file is there: true when written or already holding exactly
 *  these bytes, false when it holds others. The bytes go to a temporary name in the same folder
 *  first and are linked into place whole, so a failed write (a full disk) leaves nothing at the
 *  document's path, and `link` refuses an existing file, so none is ever replaced.
 *  @throws ENOTDIR/EISDIR and real failures. */
async function writeNew(outDir: string, rel: string, body: Uint8Array): Promise<boolean> {
  const full = resolveInside(outDir, rel);
  const dir = path.dirname(full);
  // Random, so no document's path (a URL may name `.~rg-…` too) is ever taken for it.
  const tmp = path.join(dir, `.~rg-${process.pid}-${randomBytes(6).toString('hex')}.part`);
  try {
    await writeTemp(dir, tmp, body);
    await placeNew(tmp, full);
    // Gone already where placeNew renamed it (no hard links); the document is in place either way.
    await fs.unlink(tmp).catch(() => {});
    return true;
  } catch (err) {
    // A write cut short (a full disk) may have left part of the temporary file.
    await fs.rm(tmp, { force: true });
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  const there = await fs.readFile(full).catch(() => undefined);
  return there !== undefined && Buffer.from(body.buffer, body.byteOffset, body.byteLength).equals(there);
}

/** Folders made (or found) by this process: a crawl saves many documents per folder, and a mkdir
 *  per document (with its lstat walk) was a tenth of a fast crawl's time. Bounded: past the cap it
 *  starts again, which costs only mkdir calls. */
const madeDirs = new Set<string>();
const MADE_DIRS_MAX = 100_000;

/** Write the temporary file, making its folder first unless this process already has. */
async function writeTemp(dir: string, tmp: string, body: Uint8Array): Promise<void> {
  if (!madeDirs.has(dir)) {
    await fs.mkdir(dir, { recursive: true });
    if (madeDirs.size >= MADE_DIRS_MAX) madeDirs.clear();
    madeDirs.add(dir);
  }
  try {
    await fs.writeFile(tmp, body, { flag: 'wx' });
  } catch (err) {
    // The folder went away since (removed by hand mid-crawl): make it again, once.
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    madeDirs.delete(dir);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(tmp, body, { flag: 'wx' });
  }
}

/** Give `tmp` the name `full` unless a file has it. @throws EEXIST when one has. */
async function placeNew(tmp: string, full: string): Promise<void> {
  try {
    await fs.link(tmp, full);
  } catch (err) {
    // File systems without hard links (FAT, some network mounts): a check then a rename; the
    // crawl lock keeps other writers out of --out, so nothing comes between the two.
    if (!NO_LINKS.has((err as { code?: string }).code ?? '')) throw err;
    if (await fs.lstat(full).then(() => true, () => false)) throw Object.assign(new Error(`${full} exists`), { code: 'EEXIST' });
    await fs.rename(tmp, full);
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
