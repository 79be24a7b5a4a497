// scripts/test-prereqs.sh, which `npm test` runs first: on a machine without what the tests need
// it installs it (root with apt-get) or stops at once with one line naming the command. Run in a
// sandbox PATH whose `id` and `apt-get` are stand-ins, so the test never installs anything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve('scripts/test-prereqs.sh');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const exe = (file: string, body: string) => fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });

/** A machine with chromium, and without redis-server and python3-websockets until "installed". */
function sandbox(o: { uid: number; aptFails?: boolean; haveAll?: boolean }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-prereqs-'));
  dirs.push(root);
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  const log = path.join(root, 'apt.log');
  fs.writeFileSync(log, '');
  exe(path.join(bin, 'id'), `echo ${o.uid}`);
  // Installing makes both appear, as Debian's packages would.
  exe(
    path.join(bin, 'apt-get'),
    `echo "$*" >> ${log}\n${o.aptFails ? 'exit 100' : `case "$1" in install) : > ${root}/websockets; printf '#!/bin/sh\\n' > ${bin}/redis-server; /bin/chmod +x ${bin}/redis-server;; esac`}`,
  );
  exe(path.join(root, 'python3'), `[ -e ${root}/websockets ]`);
  exe(path.join(root, 'chromium'), 'exit 0');
  if (o.haveAll) {
    fs.writeFileSync(path.join(root, 'websockets'), '');
    exe(path.join(bin, 'redis-server'), 'exit 0');
  }
  const run = (env: Record<string, string> = {}) => {
    const r = spawnSync('/bin/bash', [SCRIPT], {
      env: { PATH: bin, CHROMIUM_PATH: path.join(root, 'chromium'), PYTHON3: path.join(root, 'python3'), ...env },
      encoding: 'utf8',
      timeout: 10_000,
    });
    return { code: r.status, stderr: r.stderr, apt: fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
  };
  return { root, run };
}

describe('npm test on a fresh machine', () => {
  it('npm test runs the check before the build and vitest', () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toMatch(/^bash scripts\/test-prereqs\.sh && /);
    expect(fs.readFileSync('.ci/run', 'utf8')).toMatch(/\nnpm test\n?$/);
  });

  it('not root: stops at once, in one line naming the command to run', () => {
    const r = sandbox({ uid: 1000 }).run();
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'npm test: missing redis-server python3-websockets; run `sudo apt-get update && sudo apt-get install -y redis-server python3-websockets` (Debian or Ubuntu), then npm test again',
    ]);
    expect(r.apt).toEqual([]);
  });

  it('root with apt-get: installs what is missing, once', () => {
    const s = sandbox({ uid: 0 });
    const r = s.run();
    expect([r.code, r.stderr.trim()]).toEqual([0, 'npm test: installing redis-server python3-websockets from Debian']);
    expect(r.apt).toEqual(['update -qq', 'install -y -qq redis-server python3-websockets']);
    const again = s.run();
    expect([again.code, again.stderr, again.apt.length]).toEqual([0, '', 2]);
  });

  it('root, but apt-get fails: one line naming the command', () => {
    const r = sandbox({ uid: 0, aptFails: true }).run();
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      'npm test: could not install redis-server python3-websockets; run `apt-get update && apt-get install -y redis-server python3-websockets`, then npm test again',
    );
  });

  it('a CHROMIUM_PATH that is not there is named, not installed over', () => {
    const s = sandbox({ uid: 0, haveAll: true });
    const r = s.run({ CHROMIUM_PATH: path.join(s.root, 'no-such-chromium') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^npm test: CHROMIUM_PATH=\S+no-such-chromium is not an executable/);
    expect(r.apt).toEqual([]);
  });

  it('with everything there: silent, exit 0, nothing installed', () => {
    const r = sandbox({ uid: 0, haveAll: true }).run();
    expect([r.code, r.stderr, r.apt]).toEqual([0, '', []]);
  });
});
