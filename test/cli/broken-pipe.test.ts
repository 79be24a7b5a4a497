// Every command, not only the crawl's, may be piped into `head`: output past the reader's end is
// dropped and the command exits with its own code, never an EPIPE stack trace.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = path.resolve('dist/cli/main.js');
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe('a pipe that closes early', () => {
  it('lint FILE | head -c 0: no EPIPE stack trace, lint keeps its exit code (1: warnings)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rg-pipe-'));
    const f = path.join(dir, 'robots.txt');
    // Thousands of warnings: far more output than a pipe buffer holds.
    writeFileSync(f, 'User-agent: *\n' + 'not a key value line\n'.repeat(5000));
    const line = `${q(process.execPath)} ${q(CLI)} lint ${q(f)} | head -c 0; echo "rc=\${PIPESTATUS[0]}" >&2`;
    const r = spawnSync('bash', ['-c', line], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.stderr).toMatch(/rc=1/);
  });
});
