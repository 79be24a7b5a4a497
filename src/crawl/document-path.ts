// Where a fetched document is saved under --out: host, then path. Built so that no URL, however
// hostile (`/../../etc/passwd`, `%2e%2e`, `%2F`, NUL, thousands of characters), can name a file
// outside the output directory.
import { createHash } from 'node:crypto';
import path from 'node:path';

/** Longest file-name segment kept as is (bytes); longer ones are cut and hashed. */
const MAX_SEGMENT = 100;
/** Deepest path kept; deeper or longer paths go to `_long/<sha256>`. */
const MAX_DEPTH = 24;
const MAX_TOTAL = 600;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function safeSegment(raw: string): string {
  let s: string;
  try {
    s = decodeURIComponent(raw);
  } catch {
    s = raw;
  }
  // Path separators (a decoded %2F or %5C), control characters (NUL) and characters some file
  // systems refuse become `_`.
  s = s.replace(/[\x00-\x1f\x7f/\\:*?"<>|]/g, '_');
  // `.` and `..` (or `%2e%2e` decoded) must never be a segment: prefix them. Nor a name of the
  // temporary files a killed crawl leaves (`.~rg-PID-HEX-N.part`): the next crawl removes those,
  // and a URL that names one would lose its document.
  if (s === '' || /^\.+$/.test(s) || s.startsWith('.~rg-')) s = `_${s}`;
  if (Buffer.byteLength(s) > MAX_SEGMENT) s = `${[...s].slice(0, 40).join('')}~${sha(s).slice(0, 16)}`;
  return s;
}

/**
 * The path (relative to the output directory, with `/` separators) for a document's URL:
 * `<host>[_<port>]/<path segments>`; a path ending in `/` gets `index.html`; a query adds
 * `~q<hash>` to the last segment.
 */
export function documentPath(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  const hostDir = safeSegment(u.port ? `${u.hostname}_${u.port}` : u.hostname);
  const parts = u.pathname.split('/').slice(1);
  if (parts.length === 0 || parts[parts.length - 1] === '') parts[parts.length === 0 ? 0 : parts.length - 1] = 'index.html';
  const segs = parts.map(safeSegment);
  if (u.search) segs[segs.length - 1] += `~q${sha(u.search).slice(0, 12)}`;
  const rel = [hostDir, ...segs].join('/');
  if (segs.length > MAX_DEPTH || rel.length > MAX_TOTAL) return `${hostDir}/_long/${sha(u.href)}`;
  return rel;
}

/** Where to put a document whose natural path collides with another (a file where a directory
 *  is needed, or the reverse). */
export function conflictPath(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  return `${safeSegment(u.port ? `${u.hostname}_${u.port}` : u.hostname)}/_conflicts/${sha(u.href)}`;
}

/** Resolve `rel` under `outDir`, refusing anything that would land outside it.
 *  @throws RangeError if it would (a bug: documentPath never produces such a path). */
export function resolveInside(outDir: string, rel: string): string {
  const root = path.resolve(outDir);
  const full = path.resolve(root, rel);
  if (!full.startsWith(root + path.sep)) throw new RangeError(`refusing to write outside ${root}: ${rel}`);
  return full;
}

/** Error codes meaning a path is held by something else (a file, or a file where a folder is
 *  needed, or the reverse): the document then tries its next path, not a failure of the disk. */
export const COLLISION = new Set(['EEXIST', 'ENOTDIR', 'EISDIR']);

/** How many paths a document may take (see `placementPath`). */
export const PLACEMENT_TRIES = 3;

/** The `i`th path (0-based) a document of URL `u` and content hash `sha256` may take: its
 *  documentPath, its conflictPath, then that plus the first 16 hex digits of the hash. `tried`
 *  holds the paths 0 to i-1 (the conflict path is built once, and only when the natural path is
 *  taken: nearly every document goes to its natural path). */
export function placementPath(u: URL, i: number, tried: readonly string[], sha256: string): string {
  return i === 0 ? documentPath(u) : i === 1 ? conflictPath(u) : `${tried[1]}~${sha256.slice(0, 16)}`;
}
