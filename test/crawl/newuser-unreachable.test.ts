// A new user's crawl where every robots.txt was unreachable (a forgotten --resolve, say) ended
// with exit 0 and no word on stderr, as if the sites disallowed everything.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-newuser-');

const down = (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(503).end('down');

describe('crawl: unreachable robots.txt', () => {
  it('says on stderr for how many hosts, names them, and exits 1 (completed with problems)', async () => {
    const v = await hosts({ 'a.test': down, 'b.test': down, 'c.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const stdin = ['a.test', 'b.test', 'c.test'].map((h) => `${v.origin(h)}/x`).join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '0', ...resolveArgs(v)], { stdin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `robots.txt unreachable for 2 of 3 hosts (a.test:${v.port}, b.test:${v.port}): everything there was disallowed (RFC 9309 §2.3.1.4); check the host names, the network, --resolve, or --robots-timeout for a slow site (\`robots-gate audit DIR --blocked\` gives each cause); --resume tries those URLs again`,
    );
    expect(v.requests('c.test', '/x')).toHaveLength(1);
    // The cause, as the audit recorded it, where the blocked URLs are listed: the 503.
    const blocked = await runCli(['audit', path.join(dir, 'out'), '--blocked']);
    expect(blocked.stdout).toMatch(/a\.test:\d+\/x\s+unreachable \(503\)/);
    const host = await runCli(['audit', path.join(dir, 'out'), '--host', `a.test:${v.port}`]);
    expect(host.stdout).toContain('unreachable (503)');
  });

  it('--resume asks again for the URLs an unreachable robots.txt blocked (RFC 9309 §2.3.1.4: only while it cannot be read)', async () => {
    let healed = false;
    const flaky = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (!healed) return void res.writeHead(503).end('down');
      if (req.url === '/robots.txt') return void res.end('User-agent: *\nDisallow: /no\n');
      res.end('page');
    };
    const v = await hosts({ 'a.test': flaky, 'c.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const stdin = [`${v.origin('a.test')}/x`, `${v.origin('a.test')}/no`, `${v.origin('c.test')}/y`].join('\n') + '\n';
    const args = ['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '0', ...resolveArgs(v)];
    expect((await runCli(args, { stdin })).code).toBe(1);
    expect(v.requests('a.test', '/x')).toHaveLength(0);
    healed = true;
    const again = await runCli([...args, '--resume'], { stdin });
    expect(again.code, again.stderr).toBe(0);
    // a.test's two URLs decided anew under the file it now serves; c.test's settled one not asked again.
    expect(v.requests('a.test', '/x')).toHaveLength(1);
    expect(v.requests('a.test', '/no')).toHaveLength(0);
    expect(v.requests('c.test', '/y')).toHaveLength(1);
    const blocked = await runCli(['audit', path.join(dir, 'out'), '--blocked']);
    expect(blocked.stdout).toMatch(/a\.test:\d+\/no\s+disallowed-by-rule\s+2\s+\/no\s/);
    // Settled now: a third run has nothing to do.
    const third = await runCli([...args, '--resume'], { stdin });
    expect(third.code).toBe(0);
    expect(v.requests('a.test', '/x')).toHaveLength(1);
  });

  it('a crawl whose robots.txt files all answered says nothing of it and exits 0', async () => {
    const v = await hosts({ 'c.test': site('User-agent: *\nDisallow: /x\n') });
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '0', ...resolveArgs(v)], { stdin: `${v.origin('c.test')}/x\n` });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/unreachable/);
  });
});
