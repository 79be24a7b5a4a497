// One crawl at a time per audit file. Two crawls into the same --out would each keep every
// host's interval for itself, so the sites would see twice the rate they asked for, and both
// would append to one audit. The lock is a file next to the audit (`<audit>.lock`, holding
// "HOST PID"); a lock left by a crawl that was killed is taken over when its process is gone.
import fs from 'node:fs';
import os from 'node:os';

/** Another live process holds the lock. code `ERR_CRAWL_LOCKED`. */
export class CrawlLockedError extends Error {
  readonly code = 'ERR_CRAWL_LOCKED';
  constructor(
    message: string,
    readonly lockPath: string,
  ) {
    super(message);
    this.name = 'CrawlLockedError';
  }
}

export interface CrawlLock {
  /** Remove the lock file (idempotent; safe in an exit handler). */
  release(): void;
}

/**
 * Take `<auditPath>.lock`.
 * @throws CrawlLockedError when a live process (on this host) holds it, or a process on another
 *         host (which cannot be checked: the message says how to clear a stale lock).
 * @throws the file system error when the lock cannot be written.
 */
export function lockAudit(auditPath: string): CrawlLock {
  const lockPath = `${auditPath}.lock`;
  const me = `${os.hostname()} ${process.pid}`;
  for (let tries = 0; tries < 3; tries++) {
    try {
      fs.writeFileSync(lockPath, me, { flag: 'wx' });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (fs.readFileSync(lockPath, 'utf8') === me) fs.unlinkSync(lockPath);
          } catch {
            // Already gone.
          }
        },
      };
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    }
    let holder = '';
    try {
      holder = fs.readFileSync(lockPath, 'utf8').trim();
    } catch {
      continue; // released meanwhile: try again
    }
    const m = /^(\S+) (\d+)$/.exec(holder);
    // Left by a crawl that was killed (SIGKILL, a crash): its process is gone. Or empty for a
    // while: killed between creating the file and writing its name in (refused for ever before).
    const stale = m ? m[1] === os.hostname() && !alive(Number(m[2])) : holder === '' && ageMs(lockPath) > EMPTY_LOCK_STALE_MS;
    if (stale) {
      takeOver(lockPath, holder);
      continue;
    }
    const who = m ? (m[1] === os.hostname() ? `process ${m[2]}` : `process ${m[2]} on ${m[1]}`) : 'another process';
    throw new CrawlLockedError(
      `another crawl (${who}) is writing ${auditPath}: two crawls into one --out would double every host's rate; wait for it, use another --out${m && m[1] !== os.hostname() ? `, or remove ${lockPath} if that crawl is gone` : ''}`,
      lockPath,
    );
  }
  throw new CrawlLockedError(`cannot take the lock ${lockPath}: it keeps changing hands`, lockPath);
}

/** An empty lock file older than this (ms) was left by a crawl killed as it wrote it. */
const EMPTY_LOCK_STALE_MS = 10_000;

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Remove the stale lock that held `holder`, unless it changed hands meanwhile. Two crawls finding
 * one stale lock both removed it, and the second removed the first's fresh lock: both ran (4 of
 * 30 tries). Moving it aside is atomic (one of them moves it, the other finds nothing to move),
 * and what was moved is checked: a fresh lock moved by mistake is put back.
 */
export function takeOver(lockPath: string, holder: string): void {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    fs.renameSync(lockPath, aside);
  } catch {
    return; // another crawl moved it first
  }
  let was: string | null = null;
  try {
    was = fs.readFileSync(aside, 'utf8').trim();
  } catch {
    // Unreadable now: treat as changed hands.
  }
  if (was === holder) {
    fs.rmSync(aside, { force: true });
    return;
  }
  try {
    fs.renameSync(aside, lockPath);
  } catch {
    fs.rmSync(aside, { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as { code?: string }).code === 'EPERM';
  }
}
