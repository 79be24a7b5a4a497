// `crawl --resume` with another list, after a resumed run that had nothing left to do: the warning
// names the run whose work is resumed, not the empty run in between.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site } from '../helpers/hosts.js';
import { crawlFixture } from './crawl-fixture.js';
import { runCli } from './run-cli.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-resume-differs-');

describe('crawl --resume with a changed list', () => {
  it('names the newest run that crawled something, and records the resume of that run', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const out = path.join(tmp(), 'out');
    const urls = (n: number[]) => n.map((i) => `${v.origin('a.test')}/p${i}`).join('\n') + '\n';
    const args = ['crawl', '-', '--user-agent', 'T/1.0', '--out', out, '--min-interval', '0', ...resolveArgs(v)];
    expect((await runCli(args, { stdin: urls([1, 2]) })).code).toBe(0);
    // Everything settled already: this run sends nothing and records no row.
    const idle = await runCli([...args, '--resume'], { stdin: urls([1, 2]) });
    expect(idle.stderr).toMatch(/resuming: 2 URLs already settled, 0 to go/);
    const changed = await runCli([...args, '--resume'], { stdin: urls([1, 3]) });
    expect(changed.code).toBe(0);

    const audit = openAudit(out);
    const runs = audit.runs();
    audit.close();
    expect(runs.map((r) => r.attempts > 0)).toEqual([true, false, true]);
    const [first, empty, third] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
    expect(changed.stderr).toContain(`the URL list differs from the one run ${first.runId} crawled: 1 of its 2 URLs were settled in earlier runs and are skipped`);
    expect(changed.stderr).not.toContain(empty.runId);
    expect(third.resumeOf).toBe(first.runId);
    expect(v.requests('a.test').filter((q) => q.path !== '/robots.txt').map((q) => q.path)).toEqual(['/p1', '/p2', '/p3']);
  });

  it('records an input line that is not a URL once, not again at each --resume', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const out = path.join(tmp(), 'out');
    const stdin = `not a url\n${v.origin('a.test')}/p1\n`;
    const args = ['crawl', '-', '--user-agent', 'T/1.0', '--out', out, '--min-interval', '0', ...resolveArgs(v)];
    expect((await runCli(args, { stdin })).code).toBe(1);
    for (let i = 0; i < 2; i++) expect((await runCli([...args, '--resume'], { stdin })).code).toBe(1);
    const audit = openAudit(out);
    const rows = audit.attempts();
    audit.close();
    expect(rows.filter((r) => r.url === 'not a url')).toHaveLength(1);
    expect(rows.filter((r) => r.url.endsWith('/p1'))).toHaveLength(1);
  });
});
