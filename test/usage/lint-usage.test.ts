// `robots-gate lint` reports misplaced usage lines, unknown labels and bad dictionary syntax.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../cli/run-cli.js';

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-usage-lint-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('lint names a Content-Signal outside any group, unknown labels and bad syntax, by line', async () => {
  const file = path.join(dir, 'robots.txt');
  fs.writeFileSync(file, 'Content-Signal: ai-train=no\nUser-agent: *\nContent-Usage: train-ai=n, bots=y\nContent-Signal: search=yes ai-train\nDisallow: /x\n');
  const r = await runCli(['lint', file, '--json']);
  const found = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.code).map((d) => [d.line, d.code, d.severity]);
  expect(found).toEqual(
    expect.arrayContaining([
      [1, 'signal-outside-group', 'info'],
      [3, 'usage-unknown-label', 'info'],
      [4, 'usage-syntax', 'warning'],
    ]),
  );
});
