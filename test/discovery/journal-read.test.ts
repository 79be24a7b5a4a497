// The sitemap journal --resume replays: read a chunk at a time, so a journal of any size reads
// back whole (read as one string, one past ~512 MiB failed and every settled sitemap replayed
// nothing), and one that cannot be read replays nothing, so its sitemaps are fetched again
// instead of being skipped with their URLs lost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/cli/crawl-sitemaps.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-journal-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readJournal', () => {
  it('reads lines cut across its chunks, multi-byte characters included, for the settled sitemaps only', () => {
    const file = path.join(dir, 'a.jsonl');
    const lines: string[] = [];
    const want: string[] = [];
    // About 3 MiB of lines of uneven length, so chunk edges fall mid-line and mid-character.
    for (let i = 0; i < 900; i++) {
      const entries = Array.from({ length: 1 + (i % 37) }, (_, k) => ({ kind: 'url', loc: `https://a.test/café/${i}/${k}/${'é'.repeat(i % 200)}` }));
      lines.push(JSON.stringify({ sitemap: `https://a.test/s${i % 3}.xml`, entries }));
      if (i % 3 !== 2) want.push(...entries.map((e) => e.loc));
    }
    fs.writeFileSync(file, lines.join('\n') + '\n{"sitemap":"https://a.test/s0.xml","entr');
    const out = readJournal(file, new Set(['https://a.test/s0.xml', 'https://a.test/s1.xml']));
    expect([...out.keys()].sort()).toEqual(['https://a.test/s0.xml', 'https://a.test/s1.xml']);
    const got = [...out.get('https://a.test/s0.xml')!, ...out.get('https://a.test/s1.xml')!].map((e) => e.loc);
    expect(got.sort()).toEqual(want.sort());
  });

  it('a journal that is missing replays the settled sitemaps as empty; one that cannot be read replays nothing (they are fetched again)', () => {
    expect(readJournal(path.join(dir, 'none.jsonl'), new Set(['https://a.test/s.xml']))).toEqual(new Map([['https://a.test/s.xml', []]]));
    const unreadable = path.join(dir, 'is-a-dir.jsonl');
    fs.mkdirSync(unreadable);
    expect(readJournal(unreadable, new Set(['https://a.test/s.xml'])).size).toBe(0);
  });
});
