// A new user's first run: a redirect to a disallowed page is marked blocked at once (nothing is
// sent for it, so it has no interval to wait), a URL list that cannot be read leaves no --out
// behind, and file errors are said in words, not as ENOENT / EISDIR.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-newuser-first-');

describe('a first crawl', () => {
  it('a redirect target its robots.txt disallows is blocked at once, not after the host interval', async () => {
    const a = site('User-agent: *\nDisallow: /private\n');
    const v = await hosts({
      'a.test': (req, res) => (req.url === '/r' ? void res.writeHead(302, { location: '/private/login' }).end() : a(req, res)),
    });
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '4000', '--json', ...resolveArgs(v)], {
      stdin: `${v.origin('a.test')}/r\n`,
    });
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((o) => o.type === 'attempt');
    const hop = rows.find((o) => o.url.endsWith('/r'))!;
    const target = rows.find((o) => o.url.endsWith('/private/login'))!;
    expect(target).toMatchObject({ outcome: 'blocked', kind: 'redirect', parentUrl: hop.url, ruleLine: 2 });
    // Before, the target waited in the queue for the host's 4 s interval to be decided.
    expect(Date.parse(target.startedAt) - Date.parse(hop.endedAt)).toBeLessThan(2000);
    expect(v.requests('a.test', '/private/login')).toHaveLength(0);
  });

  it('a URL list that does not exist, or is a directory, is said in words and creates no --out', async () => {
    const dir = tmp();
    const out = path.join(dir, 'out');
    const missing = await runCli(['crawl', path.join(dir, 'nope.txt'), '--user-agent', UA, '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the URL list .*nope\.txt: there is no such file or directory/);
    expect(missing.stderr).not.toMatch(/ENOENT/);
    expect(fs.existsSync(out)).toBe(false);
    const isDir = await runCli(['crawl', dir, '--user-agent', UA, '--out', out]);
    expect(isDir.code).toBe(2);
    expect(isDir.stderr).toMatch(/cannot read the URL list .*: it is a directory, not a file/);
    expect(isDir.stderr).not.toMatch(/EISDIR/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('lint, check and explain say what is wrong with a file in words', async () => {
    const dir = tmp();
    const lint = await runCli(['lint', path.join(dir, 'robots.txt')]);
    expect(lint.code).toBe(3);
    expect(lint.stderr).toMatch(/cannot read .*robots\.txt: there is no such file or directory/);
    const check = await runCli(['check', 'https://a.test/', '--user-agent', UA, '--robots-file', dir]);
    expect(check.code).toBe(3);
    expect(check.stderr).toMatch(/cannot read --robots-file .*: it is a directory, not a file/);
    expect(check.stderr).not.toMatch(/EISDIR/);
    const file = path.join(dir, 'plain');
    fs.writeFileSync(file, 'x');
    const out = await runCli(['crawl', '-', '--user-agent', UA, '--out', file], { stdin: 'https://a.test/\n' });
    expect(out.stderr).toMatch(/cannot write to --out .*plain: it is a file, not a directory/);
  });
});
