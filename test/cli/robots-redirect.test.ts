// `check` and `explain` for an origin whose robots.txt redirects to another host: the output names
// where the rules finally came from (RFC 9309 §2.3.1.2), not only the URL first asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from './run-cli.js';

let v: VirtualHosts;
const rules = site('User-agent: *\nDisallow: /private/\n');
beforeAll(async () => {
  assertBuilt();
  v = await startVirtualHosts({
    // redir.test's robots.txt moved to target.test; gone.test's moved to a 404.
    'redir.test': (req, res) => void res.writeHead(301, { location: `${v.origin('target.test')}/robots.txt` }).end(),
    'gone.test': (req, res) => void res.writeHead(302, { location: `${v.origin('target.test')}/missing/robots.txt` }).end(),
    // loop.test's robots.txt redirects to itself; ring.test's goes round two URLs; long0.test's
    // chain goes on past the limit with each hop a new URL (on its own host, so no hop waits for
    // the last one's slot): too long, not a loop.
    'loop.test': (req, res) => void res.writeHead(301, { location: '/robots.txt' }).end(),
    'ring.test': (req, res) => void res.writeHead(302, { location: req.url === '/robots.txt' ? '/b/robots.txt' : '/robots.txt' }).end(),
    ...Object.fromEntries(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [`long${i}.test`, (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(301, { location: `${v.origin(`long${i + 1}.test`)}/robots.txt` }).end()]),
    ),
    'target.test': (req, res) => (req.url === '/missing/robots.txt' ? void res.writeHead(404).end() : rules(req, res)),
  });
});
afterAll(() => v?.close());
const resolveArgs = () => v.resolve.flatMap((r) => ['--resolve', r]);
const robots = (host: string, p = '/robots.txt') => `${v.origin(host)}${p}`;
const UA = ['--user-agent', 'TestBot/1.0'];

describe('a robots.txt redirected to another host', () => {
  it('check names the final URL in its line and in --json', async () => {
    const text = await runCli(['check', `${v.origin('redir.test')}/private/x`, ...UA, ...resolveArgs()]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`[${robots('redir.test')} → ${robots('target.test')} 200]`);
    const json = await runCli(['check', `${v.origin('redir.test')}/private/x`, ...UA, '--json', ...resolveArgs()]);
    expect(JSON.parse(json.stdout)).toMatchObject({ allowed: false, policy: { robotsUrl: robots('redir.test'), finalUrl: robots('target.test'), status: 200 } });
    expect(v.requests('target.test', '/robots.txt').length).toBeGreaterThanOrEqual(1);
  });

  it("explain's header and --json source name the final URL", async () => {
    const text = await runCli(['explain', `${v.origin('redir.test')}/private/x`, ...UA, ...resolveArgs()]);
    expect(text.code).toBe(1);
    expect(text.stdout.split('\n')[0]).toMatch(new RegExp(`^# ${robots('redir.test')} → ${robots('target.test')} \\(status 200, sha256 [0-9a-f]{16}…, fetched `));
    const json = await runCli(['explain', `${v.origin('redir.test')}/private/x`, ...UA, '--json', ...resolveArgs()]);
    expect(JSON.parse(json.stdout).source).toMatchObject({ robotsUrl: robots('redir.test'), finalUrl: robots('target.test'), status: 200 });
  });

  it('a redirect to a 404 says which URL answered 404', async () => {
    const final = robots('target.test', '/missing/robots.txt');
    const text = await runCli(['explain', `${v.origin('gone.test')}/private/x`, ...UA, ...resolveArgs()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`# ${robots('gone.test')} → ${final} (status 404`);
    expect(text.stdout).toContain(`Allowed: ${robots('gone.test')} → ${final} answered 404`);
    const check = await runCli(['check', `${v.origin('gone.test')}/private/x`, ...UA, ...resolveArgs()]);
    expect(check.stdout).toContain(`[${robots('gone.test')} → ${final} 404]`);
  });

  it('without a redirect the line is as before: no arrow', async () => {
    const text = await runCli(['explain', `${v.origin('target.test')}/private/x`, ...UA, '--json', ...resolveArgs()]);
    expect(JSON.parse(text.stdout).source).toMatchObject({ robotsUrl: robots('target.test'), finalUrl: robots('target.test') });
    const check = await runCli(['check', `${v.origin('target.test')}/private/x`, ...UA, ...resolveArgs()]);
    expect(check.stdout).toContain(`[${robots('target.test')} 200]`);
    expect(check.stdout).not.toContain('→');
  });

  it('a robots.txt that redirects to itself is explained as a redirect loop, still unavailable', async () => {
    const json = await runCli(['explain', `${v.origin('loop.test')}/x`, ...UA, '--json', ...resolveArgs()]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ allowed: true, reason: 'too-many-redirects' });
    expect(out.sentence).toBe(`Allowed: ${robots('loop.test')} redirects to itself, a redirect loop, which counts as unavailable (RFC 9309 §2.3.1.2).`);
    const text = await runCli(['explain', `${v.origin('loop.test')}/x`, ...UA, ...resolveArgs()]);
    expect(text.stdout).toContain('a redirect loop');
    expect(text.stdout).not.toContain('too many');
  });

  it('a loop through another URL names the URL it went back to', async () => {
    const json = await runCli(['explain', `${v.origin('ring.test')}/x`, ...UA, '--json', ...resolveArgs()]);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ allowed: true, reason: 'too-many-redirects' });
    expect(out.sentence).toBe(
      `Allowed: ${robots('ring.test')} → ${robots('ring.test', '/b/robots.txt')} redirects back to ${robots('ring.test')}, a redirect loop, which counts as unavailable (RFC 9309 §2.3.1.2).`,
    );
  });

  it('a chain that only goes on too long still says too many redirects', async () => {
    const json = await runCli(['explain', `${v.origin('long0.test')}/x`, ...UA, '--json', ...resolveArgs()]);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ allowed: true, reason: 'too-many-redirects' });
    expect(out.sentence).toBe(`Allowed: ${robots('long0.test')} redirected too many times, which counts as unavailable (RFC 9309 §2.3.1.2).`);
  });
});
