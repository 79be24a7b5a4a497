// A small tmpfs stands in for a full or read-only disk. Mounting needs root with mount rights (as
// on CI here); the tests that need it skip where mounting is refused.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Whether this process can mount a tmpfs (probed once, at import). */
export const canMountTmpfs = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-mnt-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
})();
