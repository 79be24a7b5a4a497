// Errors of the audit layer. A crawl that cannot write its audit must stop: a fetch nobody can
// account for is what this tool exists to prevent.

/** The audit could not be opened or written. `code` is stable; `reason` says why in one word. */
export class AuditWriteError extends Error {
  readonly code = 'ERR_AUDIT_WRITE';
  constructor(
    message: string,
    /** `disk-full`, `read-only`, `cannot-open`, or `io`. */
    readonly reason: 'disk-full' | 'read-only' | 'cannot-open' | 'io',
    /** The file concerned. */
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AuditWriteError';
  }
}

/** Classify a SQLite or file-system error into an AuditWriteError. */
export function auditWriteError(err: unknown, path: string, doing: string): AuditWriteError {
  if (err instanceof AuditWriteError) return err;
  const code = (err as { code?: string }).code ?? '';
  const detail = (err as { message?: string }).message ?? String(err);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') {
    return new AuditWriteError(`cannot ${doing} ${path}: the disk is full (${code}); rows written before are intact`, 'disk-full', path, { cause: err });
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new AuditWriteError(`cannot ${doing} ${path}: it is read-only (${code})`, 'read-only', path, { cause: err });
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
    return new AuditWriteError(`cannot ${doing} ${path}: ${detail} (${code})`, 'cannot-open', path, { cause: err });
  }
  return new AuditWriteError(`cannot ${doing} ${path}: ${detail}${code ? ` (${code})` : ''}`, 'io', path, { cause: err });
}
