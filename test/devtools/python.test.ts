// Proof from another language: Debian's Python (not the pyenv one on PATH) with Debian's
// python3-websockets runs examples/devtools/robots_client.py, which knows only the DevTools
// protocol, against `robots-gate browser` as a subprocess. It is blocked where robots.txt says,
// and learns the rule and line from Robots.requestBlocked.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { assertBuilt, CLI } from '../cli/run-cli.js';
import { CDN, startSite, UA, WWW, type Site } from './site.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.resolve('examples/devtools/robots_client.py');

let site: Site;
beforeAll(async () => {
  assertBuilt();
  site = await startSite();
});
afterAll(async () => {
  await site?.close();
});

function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, PYTHONPATH: '', PYTHONHOME: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a Python DevTools client is blocked where robots.txt says and learns rule and line from Robots.requestBlocked', async () => {
  const cli = spawn(process.execPath, [CLI, 'browser', '--user-agent', UA, '--port', '0', '--quiet', ...site.hosts.resolve.flatMap((r) => ['--resolve', r])]);
  try {
    const wsUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      cli.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      cli.once('close', () => reject(new Error('robots-gate browser exited')));
    });
    const r = await run(PYTHON, [SCRIPT, wsUrl, site.url(WWW, '/')]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const blocked = lines.filter((l) => l.url);
    expect(blocked.map((b) => new URL(b.url).pathname).sort()).toEqual(['/private/data.json', '/private/pixel.png', '/private/track.js']);
    for (const b of blocked) {
      expect(b).toMatchObject({ reason: 'disallowed-by-rule', rule: 'Disallow: /private/', line: 3, robotsUrl: site.url(CDN, '/robots.txt') });
      expect(b.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(b.networkError).toMatch(/^net::ERR_BLOCKED_BY_CLIENT/);
    }
    expect(lines.at(-1)).toMatchObject({ navigation: 'ok', pageAllowed: true, blocked: 3 });
    // Nothing disallowed reached the server; what is allowed did.
    expect(site.paths(CDN).sort()).toEqual(['/public/app.js', '/public/logo.png', '/robots.txt']);

    // A disallowed page: the navigation itself fails, and the script says so.
    const admin = await run(PYTHON, [SCRIPT, wsUrl, site.url(WWW, '/admin')]);
    expect(admin.code).toBe(1);
    expect(admin.stdout).toMatch(/"line": 2/);
    expect(admin.stdout).toMatch(/"navigation": "net::ERR_BLOCKED_BY_CLIENT"/);
    expect(site.paths(WWW)).not.toContain('/admin');
  } finally {
    cli.kill('SIGINT');
  }
}, 60_000);
