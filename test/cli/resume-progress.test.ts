// A resumed crawl counts its progress against the whole list, saying how much earlier runs
// settled, not against the URLs left (a new user read "3/3 done" of a 6-URL list as lost URLs).
import path from 'node:path';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { interruptWhen, runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-resume-progress-');

describe('crawl --resume progress', () => {
  it('counts the URLs earlier runs settled as done, and says so', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, Array.from({ length: 6 }, (_, i) => `${v.origin('a.test')}/p${i}`).join('\n') + '\n');
    const args = ['crawl', list, '--user-agent', 'T', '--out', path.join(dir, 'out'), '--min-interval', '300', '--progress-interval', '100', ...resolveArgs(v)];
    const first = await runCli(args, { onStart: interruptWhen(() => v.requests('a.test').filter((q) => q.path !== '/robots.txt' && q.endedAt !== undefined).length >= 2) });
    expect(first.code, first.stderr).toBe(130);
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    const [, before, left] = /resuming: (\d+) URLs? already settled, (\d+) to go/.exec(second.stderr) ?? [];
    expect(Number(before) + Number(left), second.stderr).toBe(6);
    expect(Number(before)).toBeGreaterThanOrEqual(2);
    expect(second.stderr).toContain(`progress: 6/6 done (${before} by earlier runs), 0 blocked, 0 not settled (final)`);
    const plain = second.stderr.split('\n').filter((l) => l.startsWith('progress: ') && !l.endsWith('(final)'));
    for (const l of plain) expect(l).toMatch(new RegExp(`^progress: \\d+/6 done \\(${before} by earlier runs\\)`));
  });
});
