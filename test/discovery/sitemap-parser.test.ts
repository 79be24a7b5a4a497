// The streaming parser fed the way a network feeds it: in arbitrary chunks. Whatever the cut, the
// same entries come out, a bare & included.
import { describe, expect, it } from 'vitest';
import { SitemapParser, type SitemapEntry } from '../../src/discovery/sitemap-parser.js';

function parse(chunks: string[]): { entries: SitemapEntry[]; parser: SitemapParser } {
  const entries: SitemapEntry[] = [];
  const parser = new SitemapParser((e) => entries.push(e));
  for (const c of chunks) parser.write(c);
  parser.end();
  return { entries, parser };
}

const doc =
  '\uFEFF  <?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">' +
  '<url><loc>http://a.test/1?x=1&y=2</loc><image:image><image:loc>http://a.test/img.png</image:loc></image:image><lastmod> 2024-01-01 </lastmod></url>' +
  '<url><loc><![CDATA[http://a.test/2?p=&amp;&q=1]]></loc></url>' +
  '<url><loc>http://a.test/3?a=1&amp;b=2&#38;c=3</loc><priority>0.5</priority></url></urlset>';

describe('SitemapParser', () => {
  it('gives the same entries however the text is cut, a bare & and entity references across a cut included', () => {
    const want = [
      { kind: 'url', loc: 'http://a.test/1?x=1&y=2', lastmod: '2024-01-01' },
      { kind: 'url', loc: 'http://a.test/2?p=&amp;&q=1' },
      { kind: 'url', loc: 'http://a.test/3?a=1&b=2&c=3', priority: '0.5' },
    ];
    expect(parse([doc]).entries).toEqual(want);
    for (let cut = 1; cut < doc.length; cut++) {
      const { entries } = parse([doc.slice(0, cut), doc.slice(cut)]);
      expect([cut, entries]).toEqual([cut, want]);
    }
    const { parser } = parse([doc]);
    expect(parser.format).toBe('urlset');
    expect(parser.problems).toEqual(['a bare "&" (not escaped as &amp;) was read as a literal "&"']);
  });

  it('a text list: one URL a line, CRLF and a last line without newline, a line past 4,096 characters marked', () => {
    const long = 'http://a.test/' + 'x'.repeat(5_000);
    const { entries, parser } = parse(['http://a.test/1\r\n\nhttp://a.', 'test/2\n', long.slice(0, 3_000), long.slice(3_000), '\nhttp://a.test/3']);
    expect(parser.format).toBe('text');
    expect(entries.map((e) => e.loc.length > 4_096 ? 'long' : e.loc)).toEqual(['http://a.test/1', 'http://a.test/2', 'long', 'http://a.test/3']);
  });

  it('a root element that is no sitemap stops the parse with a problem', () => {
    const { entries, parser } = parse(['<catalog><url><loc>http://a.test/1</loc></url></catalog>']);
    expect(entries).toEqual([]);
    expect(parser).toMatchObject({ format: 'unknown', done: true });
    expect(parser.problems[0]).toMatch(/root element <catalog>/);
  });
});
