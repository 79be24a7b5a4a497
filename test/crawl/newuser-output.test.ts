// What a new user reads at the end of a crawl: a final progress line that matches the summary,
// counts in English ("1 host", not "1 hosts"), and an interrupted run that says it was interrupted.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-newuser-');

describe('crawl output for a person', () => {
  it('ends the progress with an accurate final line, in singular where the count is 1', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nDisallow: /b\n') });
    const dir = tmp();
    const paths = ['/a1', '/b1', '/a2', '/b2', '/a3'];
    const r = await runCli(
      ['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '250', '--progress-interval', '20', ...resolveArgs(v)],
      { stdin: paths.map((p) => v.origin('a.test') + p).join('\n') + '\n' },
    );
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('progress:'));
    // The last progress line is the final count, nothing stale after it.
    expect(lines.at(-1)).toBe('progress: 5/5 done, 2 blocked, 0 not settled (final)');
    // One host, waiting on its interval between the three allowed pages.
    expect(r.stderr).toMatch(/, 1 host waiting on its delay,/);
    expect(r.stderr).not.toMatch(/\b1 hosts\b/);
    expect(r.stdout).toMatch(/: 5 URLs settled in [\d.]+ s, 5 audit rows, 0 policy changes/);
  });

  it('a single URL reads "1 URL settled", "1 audit row"', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '0', ...resolveArgs(v)], {
      stdin: `${v.origin('a.test')}/x\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/: 1 URL settled in [\d.]+ s, 1 audit row, 0 policy changes/);
  });

  it('after Ctrl-C the summary says the run was interrupted, how many URLs are left, and that --resume continues', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const pages = () => v.requests('a.test').filter((q) => q.path !== '/robots.txt');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '5000', ...resolveArgs(v)], {
      stdin: ['/1', '/2', '/3'].map((p) => v.origin('a.test') + p).join('\n') + '\n',
      onStart: (child) => {
        const poll = setInterval(() => {
          if (pages()[0]?.endedAt !== undefined) {
            clearInterval(poll);
            setTimeout(() => child.kill('SIGINT'), 100);
          }
        }, 10);
        child.once('close', () => clearInterval(poll));
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/: INTERRUPTED after [\d.]+ s: 1 URL settled, 2 URLs left \(--resume continues\)/);
  });
});
