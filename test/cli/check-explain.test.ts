// `robots-gate check` and `explain` as subprocesses, against a local robots.txt and a FILE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from './run-cli.js';

const ROBOTS = [
  '# test file',
  'User-agent: *',
  'Disallow: /',
  '',
  'User-agent: TestBot',
  'Allow: /private/ok',
  'Disallow: /private',
  'Crawl-delay: 2',
  '',
].join('\n');

let v: VirtualHosts;
let dir: string;
let file: string;
beforeAll(async () => {
  assertBuilt();
  v = await startVirtualHosts({ 'a.test': site(ROBOTS), 'down.test': (_q, res) => void res.writeHead(503).end() });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-check-'));
  file = path.join(dir, 'robots.txt');
  fs.writeFileSync(file, ROBOTS);
});
afterAll(async () => {
  await v.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const resolveArgs = () => v.resolve.flatMap((r) => ['--resolve', r]);

describe('robots-gate check', () => {
  it('fetches each origin and gives one decision per URL; exit 1 when one is disallowed', async () => {
    const r = await runCli(['check', `${v.origin('a.test')}/private/ok`, `${v.origin('a.test')}/private/no`, `${v.origin('down.test')}/x`, '--user-agent', 'TestBot/2.0', '--json', ...resolveArgs()]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((d) => [d.allowed, d.reason, d.rule?.line ?? null])).toEqual([
      [true, 'allowed-by-rule', 6],
      [false, 'disallowed-by-rule', 7],
      [false, 'unreachable', null],
    ]);
    expect(lines[0].policy.status).toBe(200);
    expect(lines[0].crawlDelaySeconds).toBe(2);
    expect(v.requests('a.test', '/robots.txt')).toHaveLength(1);
    // The text line says it too, beside the file it comes from.
    const text = await runCli(['check', `${v.origin('a.test')}/private/ok`, '--user-agent', 'TestBot/2.0', ...resolveArgs()]);
    expect(text.stdout).toContain(`[${v.origin('a.test')}/robots.txt 200, Crawl-delay 2 s]`);
  });

  it('with --robots-file decides every URL by that file; exit 0 when all are allowed', async () => {
    const r = await runCli(['check', 'https://x.test/private/ok', 'https://y.test/public', '--user-agent', 'TestBot', '--robots-file', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/allowed\s+https:\/\/x\.test\/private\/ok\s+Allow: \/private\/ok \(line 6\)  \[Crawl-delay 2 s\]/);
    expect(r.stdout).toMatch(/allowed\s+https:\/\/y\.test\/public\s+no-matching-rule/);
    const other = await runCli(['check', 'https://x.test/anything', '--user-agent', 'OtherBot', '--robots-file', file]);
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/disallowed\s+https:\/\/x\.test\/anything\s+Disallow: \/ \(line 3\)/);
  });

  it('a URL that is not http(s) exits 2; an unreadable file exits 3', async () => {
    const r = await runCli(['check', 'ftp://x.test/a', '--user-agent', 'TestBot', '--robots-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ftp:/);
    const r2 = await runCli(['check', 'http://x.test/a', '--user-agent', 'TestBot', '--robots-file', path.join(dir, 'nope')]);
    expect(r2.code).toBe(3);
    expect(r2.stderr).toMatch(/cannot read --robots-file/);
  });
});

describe('robots-gate explain', () => {
  it('marks the group that applied and the deciding line, and says why in one sentence', async () => {
    const r = await runCli(['explain', 'http://x.test/private/secret', '--user-agent', 'TestBot/1.0', '--robots-file', file]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('| 5  User-agent: TestBot');
    expect(lines).toContain('> 7  Disallow: /private');
    expect(lines).toContain('  2  User-agent: *');
    expect(r.stdout).toMatch(/Disallowed: "Disallow: \/private" on line 7 is the longest rule in the group for "TestBot" \(line 5\) matching \/private\/secret/);
    // The pace the group asks is part of the answer (a new user found it only in check --json).
    expect(lines).toContain("Crawl-delay: 2 s between two requests to this host (the group's; a longer floor of the crawler's own still applies)");
    const fetched = await runCli(['explain', `${v.origin('a.test')}/private/secret`, '--user-agent', 'TestBot/1.0', ...resolveArgs()]);
    expect(fetched.stdout).toContain('Crawl-delay: 2 s between two requests to this host');
    const star = await runCli(['explain', 'http://x.test/a', '--user-agent', 'OtherBot/1.0', '--robots-file', file]);
    expect(star.stdout).not.toMatch(/^Crawl-delay:/m);
  });

  it('says "allow wins a tie" only when a disallow rule of the same length also matched', async () => {
    const longer = path.join(dir, 'longer.txt');
    fs.writeFileSync(longer, 'User-agent: *\nDisallow: /a\nAllow: /a/b\n');
    const plain = await runCli(['explain', 'http://x.test/a/b/c', '--user-agent', 'TestBot/1.0', '--robots-file', longer]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('Allowed: "Allow: /a/b" on line 3 is the longest rule in the group for "*" (line 1) matching /a/b/c (RFC 9309 §2.2.2).');
    expect(plain.stdout).not.toMatch(/tie/);

    // /a* and /a/ are both three octets long: the tie is real, so the rule that broke it is named.
    const tied = path.join(dir, 'tied.txt');
    fs.writeFileSync(tied, 'User-agent: *\nDisallow: /a*\nAllow: /a/\n');
    const tie = await runCli(['explain', 'http://x.test/a/b', '--user-agent', 'TestBot/1.0', '--robots-file', tied]);
    expect(tie.code).toBe(0);
    expect(tie.stdout).toContain('Allowed: "Allow: /a/" on line 3 is the longest rule in the group for "*" (line 1) matching /a/b (RFC 9309 §2.2.2; allow wins a tie).');

    // A disallow rule of the same length that does not match the URL is no tie.
    const other = path.join(dir, 'other.txt');
    fs.writeFileSync(other, 'User-agent: *\nDisallow: /c/\nAllow: /a/\n');
    const none = await runCli(['explain', 'http://x.test/a/b', '--user-agent', 'TestBot/1.0', '--robots-file', other, '--json']);
    expect(JSON.parse(none.stdout).sentence).toBe('Allowed: "Allow: /a/" on line 3 is the longest rule in the group for "*" (line 1) matching /a/b (RFC 9309 §2.2.2).');
  });

  it('fetches the robots.txt when no file is given, and explains an unreachable one', async () => {
    const ok = await runCli(['explain', `${v.origin('a.test')}/private/ok`, '--user-agent', 'TestBot/1.0', ...resolveArgs()]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/> 6  Allow: \/private\/ok/);
    expect(ok.stdout).toMatch(/^Allowed: /m);
    const down = await runCli(['explain', `${v.origin('down.test')}/x`, '--user-agent', 'TestBot/1.0', ...resolveArgs()]);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/Disallowed: .*could not be fetched \(503\).*RFC 9309 §2\.3\.1\.4/);
  });
});
