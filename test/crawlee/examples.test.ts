// The crawler examples as a user runs them (`npm run example:…` after a build): each must crawl
// the replay without a disallowed URL reaching it and end with a clean `robots-gate audit --verify`.
import { spawn } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { assertBuilt } from '../cli/run-cli.js';

function run(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.each(['cheerio', 'puppeteer'])('examples/crawlers/%s.mjs', (name) => {
  test('crawls the replay, skips what robots.txt disallows, and its audit verifies', async () => {
    assertBuilt();
    const r = await run(`examples/crawlers/${name}.mjs`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/server side: 18 page requests, 6 robots\.txt requests, 0 disallowed URLs arrived/);
    expect(r.stdout).toContain('every stamp checks out');
    // rows, URLs, then the URLs fetched and blocked.
    expect(r.stdout).toMatch(/completed\s+30\s+30\s+18\s+12\b/);
  }, 150_000);
});
