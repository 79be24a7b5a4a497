// `explain` and `check` as a script or a hostile robots.txt would use them: --json, escape
// sequences in the file, bad option values.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { spawnSync } from 'node:child_process';
import { assertBuilt, CLI, runCli } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-explain-'));
let servers: VirtualHosts[] = [];
beforeAll(assertBuilt);
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, content);
  return f;
};

describe('explain --json', () => {
  it('gives one object: the decision, the group, the rule and the sentence (from a file)', async () => {
    const f = file('r.txt', 'User-agent: other\nDisallow: /\n\nUser-agent: testbot\nAllow: /public\nDisallow: /\n');
    const r = await runCli(['explain', 'https://example.com/private/x', '--user-agent', 'TestBot/1.0', '--robots-file', f, '--json']);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0]!);
    expect(o).toMatchObject({
      url: 'https://example.com/private/x',
      productToken: 'TestBot',
      allowed: false,
      reason: 'disallowed-by-rule',
      group: { userAgents: ['testbot'], lines: [4] },
      rule: { type: 'disallow', pattern: '/', line: 6 },
      source: { robotsFile: f },
    });
    expect(o.sentence).toMatch(/^Disallowed: "Disallow: \/" on line 6/);
  });

  it('gives the fetched policy stamp, and an unreachable robots.txt as an object too', async () => {
    const v = await startVirtualHosts({ 'a.test': site('User-agent: *\nDisallow: /no\n') });
    servers.push(v);
    const r = await runCli(['explain', `${v.origin('a.test')}/yes`, '--user-agent', 'T', '--json', '--resolve', v.resolve[0]!]);
    expect(r.code).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o).toMatchObject({ allowed: true, reason: 'no-matching-rule', rule: null, source: { robotsUrl: `${v.origin('a.test')}/robots.txt`, status: 200 } });
    expect(o.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    const down = await runCli(['explain', 'http://127.0.0.1:1/x', '--user-agent', 'T', '--json', '--timeout', '2000']);
    expect(down.code).toBe(1);
    expect(JSON.parse(down.stdout)).toMatchObject({ allowed: false, reason: 'unreachable', group: null, rule: null });
  });

  it('a bad URL is exit 2 with an error object on stdout and one line on stderr', async () => {
    const r = await runCli(['explain', 'javascript:alert(1)', '--user-agent', 'T', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ url: 'javascript:alert(1)', error: expect.stringMatching(/scheme/) });
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('explain on hostile input', () => {
  it('a robots.txt carrying terminal escape sequences is shown with them defused', async () => {
    const f = file('evil.txt', 'User-agent: *\x1b]0;pwned\x07\nDisallow: /a\x1b[2J\n');
    const r = await runCli(['explain', 'http://a.test/a', '--user-agent', 'T', '--robots-file', f]);
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(r.stdout).toContain('\u241b');
  });

  it('a --robots-file that does not exist is exit 3; --timeout and --context that are not numbers are exit 2', async () => {
    const missing = await runCli(['explain', 'http://a.test/', '--user-agent', 'T', '--robots-file', path.join(dir, 'nope.txt')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/cannot read --robots-file .*: there is no such file or directory/);
    const t = await runCli(['explain', 'http://a.test/', '--user-agent', 'T', '--timeout', 'abc']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--timeout must be/);
    const c = await runCli(['explain', 'http://a.test/', '--user-agent', 'T', '--robots-file', file('ok.txt', ''), '--context', '-3']);
    expect(c.code).toBe(2);
  });
});

describe('check on hostile input', () => {
  it('a rule pattern carrying escape sequences is printed defused; a non-numeric --timeout is exit 2', async () => {
    const f = file('evil-check.txt', 'User-agent: *\nDisallow: /a\x1b[2J\x1b]0;pwned\x07\n');
    const r = await runCli(['check', 'http://a.test/a%1B[2J%1B]0;pwned%07', '--user-agent', 'T', '--robots-file', f]);
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    const t = await runCli(['check', 'http://a.test/', '--user-agent', 'T', '--timeout', 'soon']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--timeout must be/);
  });
});

describe('output into a pipe that closes early', () => {
  it.each([
    ['check', 'http://a.test/a', 'http://a.test/b', 'http://a.test/c'],
    ['explain', 'http://a.test/a'],
  ])('%s | head -0: no EPIPE stack trace, the exit code is the command\'s', (cmd, ...urls) => {
    const f = file('pipe.txt', 'User-agent: *\nDisallow: /a\n'.repeat(200));
    const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
    const line = `${q(process.execPath)} ${q(CLI)} ${cmd} ${urls.map(q).join(' ')} --user-agent T --robots-file ${q(f)} | head -c 0; echo "rc=\${PIPESTATUS[0]}" >&2`;
    const r = spawnSync('bash', ['-c', line], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.stderr).toMatch(/rc=1/);
  });
});
