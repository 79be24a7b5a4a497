// `robots-gate lint` on hostile files: what it prints must never drive the terminal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'rg-hostile-lint-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('lint of a file holding terminal escape sequences', () => {
  it('prints no control character but newline and tab, in the line shown and in the message', async () => {
    const file = path.join(tmp, 'escapes.txt');
    // OSC (retitle the window), CSI (clear the screen), a bidi override, DEL, and a C1 CSI.
    writeFileSync(file, 'User-agent: *\nDis\x1b]0;pwned\x07allow: /x\x1b[2J\u202e\x7f\x9b31m\n');
    const r = await runCli(['lint', file]);
    expect(r.code).toBe(0); // an unknown directive is only a note
    expect(r.stdout).toContain('unknown-directive');
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(r.stdout).toContain('\u241b]0;pwned\u2407'); // ESC and BEL shown as Control Pictures
  });

  it('keeps the caret under the column when controls are replaced one for one', async () => {
    const file = path.join(tmp, 'caret.txt');
    writeFileSync(file, 'User-agent: *\n\x1b\x1bDisallow x\n');
    const r = await runCli(['lint', file]);
    const lines = r.stdout.split('\n');
    const shown = lines.findIndex((l) => l.includes('\u241b\u241bDisallow x'));
    expect(shown).toBeGreaterThanOrEqual(0);
    const textStart = lines[shown]!.indexOf('|') + 2;
    const caret = lines[shown + 1]!.indexOf('^');
    expect(caret).toBeGreaterThanOrEqual(textStart);
    expect(caret - textStart).toBeLessThan(lines[shown]!.length - textStart);
  });
});

describe('lint of a UTF-16 file', () => {
  it('reports the encoding and shows the lines as text, numbered as the parser numbers them', async () => {
    const file = path.join(tmp, 'utf16.txt');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('User-agent: *\r\nDisalow: /x\r\n', 'utf16le')]));
    const r = await runCli(['lint', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('[utf16]');
    expect(r.stdout).toContain(`${file}:2:1:`);
    expect(r.stdout).toContain('    2 | Disalow: /x');
  });
});

describe('lint of a file larger than it reads', () => {
  it('a 5 MB single line: the truncation counts every octet past the limit, not just those read', async () => {
    const file = path.join(tmp, 'huge.txt');
    const body = `User-agent: *\nDisallow: /${'a'.repeat(5_000_000)}\n`;
    writeFileSync(file, body);
    const r = await runCli(['lint', '--json', file]);
    expect(r.code).toBe(1);
    const truncated = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { code: string; message: string }).find((d) => d.code === 'truncated');
    expect(truncated?.message).toContain(`(${body.length - 'User-agent: *\n'.length} bytes past 512000)`);
  });
});

describe('lint --timeout that no timer can hold', () => {
  for (const t of ['abc', '-5', '99999999999']) {
    it(`--timeout ${t}: a usage error (exit 2), not a site reported unreachable`, async () => {
      const r = await runCli(['lint', 'http://127.0.0.1:9/', '--timeout', t]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--timeout must be a number of ms');
      expect(r.stderr).not.toContain('unreachable');
    });
  }
});

describe('lint of a file holding a NUL byte', () => {
  it('reports where the NUL ends the line, and the rule it leaves', async () => {
    const file = path.join(tmp, 'nul.txt');
    writeFileSync(file, 'User-agent: *\nDisallow: /private\0junk\n');
    const r = await runCli(['lint', file, '--json']);
    const found = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { code: string; line: number; column: number });
    expect(found).toContainEqual(expect.objectContaining({ code: 'nul-byte', line: 2, column: 19 }));
    expect(r.stdout).not.toContain('%00');
  });
});
