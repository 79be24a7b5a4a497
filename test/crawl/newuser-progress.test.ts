// The progress line and the summary a new user reads: redirect targets join the total as they are
// found (it read "14/12 done"), input lines that are no URL are not counted as URLs settled, the
// ETA counts down between two requests, and the URLs that failed are named.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-newuser-progress-');

const progressLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('progress:'));

describe('crawl progress and summary', () => {
  it('counts redirect targets in the total, keeps bad lines out of "settled", and names failed URLs', async () => {
    const a = site('User-agent: *\nAllow: /\n');
    const v = await hosts({
      'a.test': (req, res) => {
        if (req.url === '/r') return void res.writeHead(301, { location: `http://b.test:${v.port}/target` }).end();
        if (req.url?.startsWith('/e')) return void res.writeHead(500).end('boom');
        return a(req, res);
      },
      'b.test': site('User-agent: *\nAllow: /\n'),
    });
    const dir = tmp();
    const urls = ['/p1', '/p2', '/p3', '/r', ...Array.from({ length: 7 }, (_, i) => `/e${i + 1}`)].map((p) => v.origin('a.test') + p);
    const list = [...urls, 'not a url', 'ftp://x.test/f'].join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '0', '--progress-interval', '10', ...resolveArgs(v)], { stdin: list });
    expect(r.code).toBe(1);
    const lines = progressLines(r.stderr);
    for (const l of lines) {
      const [, done, total] = /^progress: (\d+)\/(\d+) done/.exec(l)!;
      expect(Number(done), l).toBeLessThanOrEqual(Number(total));
    }
    // 11 URLs of the list and the redirect target; the two bad lines are no URL of the run.
    expect(lines.at(-1)).toBe('progress: 12/12 done, 0 blocked, 0 not settled (final)');
    expect(r.stdout).toMatch(/: 12 URLs settled in [\d.]+ s \(11 from the list, 1 redirect target; 2 input lines skipped as not http\(s\) URLs without credentials\), /);
    // The first failed URLs by name and reason, then how many more.
    expect(r.stdout).toMatch(/^failed \(7\)$/m);
    const named = r.stdout.split('\n').filter((l) => /^ {2}http:\/\/a\.test:\d+\/e\d\s+http-500$/.test(l));
    expect(named).toHaveLength(5);
    expect(r.stdout).toMatch(/^ {2}… and 2 more \(every one is in the audit/m);

    const json = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out2'), '--min-interval', '0', '--json', ...resolveArgs(v)], { stdin: list });
    const summary = JSON.parse(json.stdout.trim().split('\n').at(-1)!);
    expect(summary.type).toBe('summary');
    expect(summary.redirectTargets).toBe(1);
    expect(summary.failed).toHaveLength(7);
    expect(summary.failed[0]).toEqual({ url: expect.stringMatching(/\/e\d$/), reason: 'http-500' });
  });

  it('the ETA counts down while the host waits out its interval', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const r = await runCli(
      ['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '3000', '--progress-interval', '100', ...resolveArgs(v)],
      { stdin: `${v.origin('a.test')}/1\n${v.origin('a.test')}/2\n`, timeoutMs: 30_000 },
    );
    expect(r.code).toBe(0);
    // While one URL is done and the other waits (3 s and more), the bound must move.
    const waiting = progressLines(r.stderr).filter((l) => l.startsWith('progress: 1/2 done'));
    const etas = new Set(waiting.map((l) => /ETA ~(\d+) s/.exec(l)?.[1]));
    expect(waiting.length).toBeGreaterThan(5);
    expect(etas.size).toBeGreaterThanOrEqual(2);
  });

  it('the ETA counts down while the first URL of a host waits out its interval after robots.txt', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const r = await runCli(
      ['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '3000', '--progress-interval', '100', ...resolveArgs(v)],
      { stdin: `${v.origin('a.test')}/1\n`, timeoutMs: 30_000 },
    );
    expect(r.code).toBe(0);
    // It stood at the whole interval until the page went: the crawl did not count from robots.txt.
    const waiting = progressLines(r.stderr).filter((l) => l.startsWith('progress: 0/1 done'));
    const etas = new Set(waiting.map((l) => /ETA ~(\d+) s/.exec(l)?.[1]));
    expect(waiting.length).toBeGreaterThan(5);
    expect(etas.size).toBeGreaterThanOrEqual(2);
  });
});
