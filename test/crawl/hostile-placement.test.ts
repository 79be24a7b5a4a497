// A site that closes every path a document may take (a URL `/_conflicts` saved as a file, then two
// URLs sharing one path) must cost those URLs, never the crawl: other hosts are still crawled,
// each lost URL has a row with the reason, and --resume runs.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-place-');

describe('crawl: a document that cannot be placed', () => {
  it('costs its URL (a row with the reason), not the run; --resume works', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n', (p) => `content of ${p}`), 'b.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    const a = v.origin('a.test');
    // `/` and `/index.html` share a path; with `_conflicts` a file, the second has nowhere to go.
    fs.writeFileSync(list, [`${a}/_conflicts`, `${a}/`, `${a}/index.html`, `${v.origin('b.test')}/page`].join('\n') + '\n');
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '0', '--concurrency', '1', ...resolveArgs(v)];

    const r = await runCli(args);
    expect(r.stderr).not.toMatch(/every path for it is taken/);
    expect(r.code, r.stderr).toBe(1);
    expect(v.requests('b.test', '/page')).toHaveLength(1);
    const audit = openAudit(out);
    const lost = audit.attempts({ outcome: 'error' });
    const done = audit.doneUrls();
    audit.close();
    expect(lost.map((x) => [x.url, x.reason, x.savedPath, x.final])).toEqual([[`${a}/index.html`, 'document-unplaceable', null, true]]);
    expect(lost[0]!.error).toMatch(/every path for it is taken by other content/);
    expect(done.size).toBe(4);

    const again = await runCli([...args, '--resume']);
    expect(again.code, again.stderr).not.toBe(4);
    expect(again.stderr).not.toMatch(/every path for it is taken/);
    expect(v.requests('a.test', '/index.html')).toHaveLength(1);
  }, 30_000);
});
