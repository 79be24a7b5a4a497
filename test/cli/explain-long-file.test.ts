// `explain` on a long file shows what decided, not the whole group: a real file's group of
// thousands of rules printed 5,006 lines to explain one decision.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-explain-long-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('explain on a long file', () => {
  // Line 1 '# big', 2 'User-agent: *', 3..5002 Disallow: /p0 .. /p4999.
  const big = ['# big', 'User-agent: *', ...Array.from({ length: 5000 }, (_, i) => `Disallow: /p${i}/`)].join('\n') + '\n';

  it('shows the group header and the deciding rule with --context lines around it', async () => {
    const file = write('big.txt', big);
    const r = await runCli(['explain', 'https://x.test/p2500/a', '--user-agent', 'TestBot', '--robots-file', file, '--context', '1']);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(12);
    expect(lines).toContain('|    2  User-agent: *');
    expect(lines).toContain('| 2502  Disallow: /p2499/');
    expect(lines).toContain('> 2503  Disallow: /p2500/');
    expect(lines).toContain('| 2504  Disallow: /p2501/');
    expect(lines).not.toContain('| 2501  Disallow: /p2498/');
    expect(lines).toContain('       … 2499 lines not shown (2499 of the group)');
    expect(r.stdout).toMatch(/^Disallowed: "Disallow: \/p2500\/" on line 2503/m);
  });

  it('--context 0 shows the header and the deciding line alone', async () => {
    const file = write('big0.txt', big);
    const r = await runCli(['explain', 'https://x.test/p7/', '--user-agent', 'TestBot', '--robots-file', file, '--context', '0']);
    const marked = r.stdout.split('\n').filter((l) => /^[>|] /.test(l));
    expect(marked).toEqual(['|    2  User-agent: *', '>   10  Disallow: /p7/']);
  });

  it('with no rule matching, shows the header of the group that applied', async () => {
    const file = write('big-none.txt', big);
    const r = await runCli(['explain', 'https://x.test/elsewhere', '--user-agent', 'TestBot', '--robots-file', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^[>|] /.test(l))).toEqual(['|    2  User-agent: *']);
  });

  it('cuts a long line as lint does', async () => {
    const file = write('wide.txt', `User-agent: *\nDisallow: /${'x'.repeat(15_000)}\n`);
    const r = await runCli(['explain', `https://x.test/${'x'.repeat(15_000)}`, '--user-agent', 'TestBot', '--robots-file', file]);
    expect(r.code).toBe(1);
    const rule = r.stdout.split('\n').find((l) => l.startsWith('> '))!;
    expect(rule).toBe(`> 2  ${`Disallow: /${'x'.repeat(15_000)}`.slice(0, 200)}…`);
  });
});
