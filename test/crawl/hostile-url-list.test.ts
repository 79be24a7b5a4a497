// URL lists as users really have them: editors' BOMs and CRLFs, binary junk, credentials,
// fragments, IPv6 and IDN hosts, and a huge number of duplicates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseUrlLine, readUrlList } from '../../src/crawl/url-list.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-urls-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, content);
  return f;
};

describe('reading a hostile URL list', () => {
  it('a BOM, CRLF line ends, fragments, IPv6 and IDN hosts', async () => {
    const list = await readUrlList(
      file('mixed.txt', '\uFEFFhttp://a.test/bom\r\nhttp://a.test/crlf\r\nhttp://a.test/f#x\r\nhttp://a.test/f#y\nhttp://[::1]:8080/v6\nhttp://bücher.test/idn\n'),
    );
    expect(list.invalid).toEqual([]);
    expect(list.urls.map((u) => u.url)).toEqual([
      'http://a.test/bom',
      'http://a.test/crlf',
      'http://a.test/f',
      'http://[::1]:8080/v6',
      'http://xn--bcher-kva.test/idn',
    ]);
    expect(list.duplicates).toBe(1);
    expect(list.urls[3]!.host).toBe('[::1]:8080');
  });

  it('a CR LF split by the reader\'s 64 KiB chunks ends one line, and a multi-byte character split there stays whole', async () => {
    // A comment line fills the first chunk, its CR the chunk's last octet and its LF the next
    // chunk's first; an 'é' (two octets) straddles the second chunk's end.
    const first = '#' + 'x'.repeat(65_536 - 2) + '\r\n';
    const one = 'http://a.test/one\n';
    const second = one + '#' + 'y'.repeat(2 * 65_536 - 1 - Buffer.byteLength(first) - one.length - 2) + '\né\nhttp://a.test/two\rhttp://a.test/three';
    const list = await readUrlList(file('chunks.txt', first + second));
    expect(Buffer.from(first + second).indexOf('é')).toBe(2 * 65_536 - 1);
    expect(list.urls.map((u) => [u.url, u.line])).toEqual([
      ['http://a.test/one', 2],
      ['http://a.test/two', 5],
      ['http://a.test/three', 6],
    ]);
    expect(list.invalid.map((l) => [l.text, l.line])).toEqual([['é', 4]]);
    expect(list.lines).toBe(6);
  });

  it('a line longer than many chunks is read in linear time (2 MB, then 20 MB)', async () => {
    // Rescanning the unfinished line with each 64 KiB chunk took 29 s for one 40 MB line: 10x
    // the line then took 100x the time. Linear reading takes about 10x (the bound leaves room
    // for a loaded machine; the 2 MB line is 32 chunks, so a file's fixed costs do not hide it).
    const build = (size: number) => file(`long-${size}.txt`, 'x'.repeat(size) + '\nhttp://a.test/after\n');
    const small = build(2_000_000);
    const large = build(20_000_000);
    const best = async (f: string) => {
      let min = Infinity;
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const list = await readUrlList(f);
        min = Math.min(min, performance.now() - t0);
        expect(list.urls.map((u) => u.line)).toEqual([2]);
      }
      return min;
    };
    await best(small);
    const ratio = (await best(large)) / (await best(small));
    expect(ratio, `20 MB took ${ratio.toFixed(1)}x the time of 2 MB`).toBeLessThan(40);
  }, 120_000);

  it('binary junk is skipped, and its message shows control bytes escaped (nothing reaches the terminal raw)', async () => {
    const list = await readUrlList(file('bin.txt', Buffer.from([0x00, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0xfe, 0x0a, 0x68, 0x0a])));
    expect(list.urls).toEqual([]);
    expect(list.invalid).toHaveLength(2);
    for (const bad of list.invalid) expect(bad.message).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(list.invalid[0]!.message).toContain('\\x1b');
  });

  it('javascript:, file:, ftp: and data: are unsupported schemes', () => {
    for (const t of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://a.test/x', 'data:text/plain,hi']) {
      expect((parseUrlLine(t, 1) as { reason: string }).reason, t).toBe('unsupported-scheme');
    }
  });

  it('a URL with credentials is skipped, and its password is kept nowhere', () => {
    const r = parseUrlLine('http://alice:s3cret@a.test/private', 7) as { reason: string; text: string; message: string };
    expect(r.reason).toBe('credentials');
    expect(r.text).not.toContain('s3cret');
    expect(r.message).not.toContain('s3cret');
    expect(r.text).toBe('http://***@a.test/private');
  });

  it('100,000 copies of one URL are one URL', async () => {
    const list = await readUrlList(file('dups.txt', 'http://a.test/same\n'.repeat(100_000)));
    expect(list.urls).toHaveLength(1);
    expect(list.duplicates).toBe(99_999);
  });
});
