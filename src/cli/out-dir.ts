// Making an output folder (crawl --out, browser --out) with the error that says what is wrong.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Create `dir` and its missing parents. Node's recursive mkdir reports a read-only file system as
 * ENOENT ("there is no such file or directory" for `--out /mnt/ro/out`, where `/mnt/ro` exists),
 * so on ENOENT the first missing folder is made alone, whose error (EROFS, EACCES) is the real one.
 * @throws the file system's error (ErrnoException) when the folder cannot be made.
 */
export function makeOutDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    let first = path.resolve(dir);
    while (path.dirname(first) !== first && !fs.existsSync(path.dirname(first))) first = path.dirname(first);
    // Throws what is really wrong; if it succeeds, the rest of the path can be made now.
    fs.mkdirSync(first);
  }
  fs.mkdirSync(dir, { recursive: true });
}
