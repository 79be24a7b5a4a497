// `robots-gate crawl` saves its documents through a writer thread: the process still ends on its own
// when the crawl does (the thread holds it open only while it has documents in hand), and every
// audit row's saved path holds the bytes its sha256 names.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-writer-exit-');

describe('robots-gate crawl with its writer thread', () => {
  it('exits by itself when the crawl ends, every document saved as its row says', async () => {
    const names = ['a.test', 'b.test', 'c.test', 'd.test'];
    const v = await hosts(Object.fromEntries(names.map((h) => [h, site('User-agent: *\nAllow: /\n', (p) => `page ${p} `.repeat(20))])));
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    const urls = names.flatMap((h) => Array.from({ length: 15 }, (_, i) => `${v.origin(h)}/d${i % 3}/p${i}`));
    // Two URLs of one path: the second goes to its conflict path.
    urls.push(`${v.origin('a.test')}/`, `${v.origin('a.test')}/index.html`);
    fs.writeFileSync(list, urls.join('\n') + '\n');
    const out = path.join(dir, 'out');

    // Killed (SIGKILL) if it does not end by itself within runCli's bound: then code is null.
    const r = await runCli(['crawl', list, '--user-agent', 'TestBot/1.0', '--out', out, '--min-interval', '0', '--concurrency', '8', ...resolveArgs(v)]);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);

    const audit = openAudit(out);
    const rows = audit.attempts({ outcome: 'fetched' });
    audit.close();
    expect(rows).toHaveLength(urls.length);
    const paths = new Set<string>();
    for (const row of rows) {
      const bytes = fs.readFileSync(path.join(out, row.savedPath!));
      expect(createHash('sha256').update(bytes).digest('hex'), row.url).toBe(row.contentSha256);
      paths.add(row.savedPath!);
    }
    expect(paths.size).toBe(urls.length);
  }, 30_000);
});
