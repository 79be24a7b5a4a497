// Saving fetched documents under --out at their documentPath, with their sha256.
import { createHash } from 'node:crypto';
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

export interface SavedDocument {
  /** Relative to the output directory, `/`-separated. */
  readonly savedPath: string;
  /** sha256 of the body, lowercase hex. */
  readonly sha256: string;
}

const COLLISION = new Set(['EEXIST', 'ENOTDIR', 'EISDIR']);

/** Save `body` for `url` under `outDir`.
 *  @throws OutputWriteError when the file system refuses (ENOSPC, EROFS, EACCES, …). */
export async function saveDocument(outDir: string, url: string, body: Uint8Array): Promise<SavedDocument> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  let rel = documentPath(url);
  try {
    await write(outDir, rel, body);
  } catch (err) {
    if (!COLLISION.has((err as { code?: string }).code ?? '')) throw outputError(err, outDir, rel);
    rel = conflictPath(url);
    try {
      await write(outDir, rel, body);
    } catch (err2) {
      throw outputError(err2, outDir, rel);
    }
  }
  return { savedPath: rel, sha256 };
}

async function write(outDir: string, rel: string, body: Uint8Array): Promise<void> {
  const full = resolveInside(outDir, rel);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, body);
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
