// The crawl lock (`<audit>.lock`): a stale one is taken over by one crawl only, and an empty one a
// killed crawl left is taken over once it is old. Two crawls that found one stale lock both
// removed it, the second removing the first's fresh lock, and both ran (4 of 30 tries, by a
// breaker's harness; the window is too narrow to hit reliably here, so it is reproduced by hand).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CrawlLockedError, lockAudit, takeOver } from '../../src/cli/crawl-lock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-lock-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A PID no process has (past the kernel's default pid_max). */
const DEAD = 4_194_400;

describe('lockAudit', () => {
  it('an empty lock is refused while fresh and taken over once older than 10 s', () => {
    const audit = path.join(dir, 'empty.sqlite');
    fs.writeFileSync(`${audit}.lock`, '');
    expect(() => lockAudit(audit)).toThrow(CrawlLockedError);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${audit}.lock`, old, old);
    const lock = lockAudit(audit);
    expect(fs.readFileSync(`${audit}.lock`, 'utf8')).toBe(`${os.hostname()} ${process.pid}`);
    lock.release();
    expect(fs.existsSync(`${audit}.lock`)).toBe(false);
  });

  it('taking over a stale lock that changed hands meanwhile puts the fresh lock back', () => {
    // The window two crawls raced in: B read the stale holder, A took the lock over and wrote its
    // own, then B removed it. Now B moves aside what it finds, sees it is not the stale holder,
    // and puts it back; A keeps its lock and B is refused.
    const audit = path.join(dir, 'race.sqlite');
    const fresh = `${os.hostname()} ${process.pid}`;
    fs.writeFileSync(`${audit}.lock`, fresh);
    takeOver(`${audit}.lock`, `${os.hostname()} ${DEAD}`);
    expect(fs.readFileSync(`${audit}.lock`, 'utf8')).toBe(fresh);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('race.sqlite.lock.'))).toEqual([]);
    // The stale holder itself is removed, and the lock is then free to take.
    fs.writeFileSync(`${audit}.lock`, `${os.hostname()} ${DEAD}`);
    takeOver(`${audit}.lock`, `${os.hostname()} ${DEAD}`);
    expect(fs.existsSync(`${audit}.lock`)).toBe(false);
    // Through lockAudit: a dead holder's lock is taken.
    fs.writeFileSync(`${audit}.lock`, `${os.hostname()} ${DEAD}`);
    lockAudit(audit).release();
  });
});
