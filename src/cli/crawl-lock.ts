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
    if (m && m[1] === os.hostname() && !alive(Number(m[2]))) {
      // Left by a crawl that was killed (SIGKILL, a crash): its process is gone.
      fs.rmSync(lockPath, { force: true });
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as { code?: string }).code === 'EPERM';
  }
}
