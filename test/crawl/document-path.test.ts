import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { documentPath, resolveInside } from '../../src/crawl/document-path.js';
import { removeStaleTemporaries, saveDocument } from '../../src/crawl/document-store.js';
import { parseUrlLine } from '../../src/crawl/url-list.js';

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-docpath-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

const inside = (rel: string) => {
  const full = path.resolve(out, rel);
  return full.startsWith(path.resolve(out) + path.sep);
};

describe('documentPath', () => {
  it('host, then path; index.html for a directory; the query hashed onto the name', () => {
    expect(documentPath('http://a.test/')).toBe('a.test/index.html');
    expect(documentPath('http://a.test:8080/x/y.html')).toBe('a.test_8080/x/y.html');
    expect(documentPath('http://a.test/x/')).toBe('a.test/x/index.html');
    expect(documentPath('http://a.test/x?q=1')).toMatch(/^a\.test\/x~q[0-9a-f]{12}$/);
    expect(documentPath('http://a.test/x?q=1')).not.toBe(documentPath('http://a.test/x?q=2'));
  });

  it('a URL naming a temporary file (.~rg-PID-HEX-N.part) is saved under another name, which the clean-up after a killed crawl leaves alone', async () => {
    const url = 'http://rok.test/.~rg-999999-0123456789abcdef-1.part';
    expect(documentPath(url)).toBe('rok.test/_.~rg-999999-0123456789abcdef-1.part');
    const dir = fs.mkdtempSync(path.join(out, 'tmpname-'));
    const saved = await saveDocument(dir, url, Buffer.from('a page'));
    expect(removeStaleTemporaries(dir)).toBe(0);
    expect(fs.readFileSync(path.join(dir, saved.savedPath), 'utf8')).toBe('a page');
  });

  it.each([
    'http://a.test/../../etc/passwd',
    'http://a.test/%2e%2e/%2e%2e/etc/passwd',
    'http://a.test/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
    'http://a.test/a/..%2f..%2f..%2fetc',
    'http://a.test/..%5c..%5cwindows',
    'http://a.test/x%00.html',
    'http://a.test/' + 'a'.repeat(5000),
    'http://a.test/' + 'b/'.repeat(400),
    'http://a.test/.%2e/.%2E/x',
    'http://%2e%2e/x',
  ])('%s stays inside DIR', async (raw) => {
    let rel: string;
    try {
      rel = documentPath(raw);
    } catch {
      return; // not a URL at all: never saved
    }
    expect(rel).not.toMatch(/\0/);
    expect(rel.split('/')).not.toContain('..');
    expect(path.isAbsolute(rel)).toBe(false);
    expect(inside(rel)).toBe(true);
    for (const seg of rel.split('/')) expect(Buffer.byteLength(seg)).toBeLessThanOrEqual(100);
    const saved = await saveDocument(out, new URL(raw).href, Buffer.from('x'));
    expect(inside(saved.savedPath)).toBe(true);
    expect(fs.readFileSync(path.join(out, saved.savedPath), 'utf8')).toBe('x');
  });

  it('any path stays inside DIR (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('..', '.', '%2e%2e', '%2F', '%00', '%5C')), { maxLength: 30 }), (segs) => {
        let u: URL;
        try {
          u = new URL('http://a.test/' + segs.join('/'));
        } catch {
          return;
        }
        const rel = documentPath(u);
        expect(inside(rel)).toBe(true);
        expect(rel.split('/')).not.toContain('..');
        expect(resolveInside(out, rel).startsWith(out)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a file where a directory is needed falls back to a conflict path, still inside', async () => {
    const a = await saveDocument(out, 'http://c.test/a', Buffer.from('1'));
    const b = await saveDocument(out, 'http://c.test/a/b', Buffer.from('2'));
    expect(a.savedPath).toBe('c.test/a');
    expect(b.savedPath).toMatch(/^c\.test\/_conflicts\/[0-9a-f]{64}$/);
    expect(fs.readFileSync(path.join(out, b.savedPath), 'utf8')).toBe('2');
  });
});

describe('parseUrlLine', () => {
  it('skips blanks and comments, normalises, drops the fragment, reports the rest', () => {
    expect(parseUrlLine('   ', 1)).toBeUndefined();
    expect(parseUrlLine('# x', 1)).toBeUndefined();
    expect(parseUrlLine(' HTTP://A.Test:80/x#frag ', 3)).toEqual({ url: 'http://a.test/x', host: 'a.test', line: 3 });
    // An empty fragment too (`hash` reads '' there), and a '#' kept escaped in the path.
    expect(parseUrlLine('http://a.test/x?q=1#', 3)).toMatchObject({ url: 'http://a.test/x?q=1' });
    expect(parseUrlLine('http://a.test/%23x#y#z', 3)).toMatchObject({ url: 'http://a.test/%23x' });
    expect(parseUrlLine('http://a.test:8080/', 1)).toMatchObject({ host: 'a.test:8080' });
    expect(parseUrlLine('ftp://a.test/x', 4)).toMatchObject({ reason: 'unsupported-scheme', line: 4 });
    expect(parseUrlLine('mailto:x@y', 4)).toMatchObject({ reason: 'unsupported-scheme' });
    expect(parseUrlLine('not a url', 5)).toMatchObject({ reason: 'invalid-url', text: 'not a url' });
    expect(parseUrlLine('\u0000\u0001garbage', 6)).toMatchObject({ reason: 'invalid-url' });
  });
});
