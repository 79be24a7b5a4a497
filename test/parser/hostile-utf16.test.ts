// UTF-16 robots.txt files with a byte-order mark, as real servers send them (www.myvue.com and
// store.usps.com in the shared corpus): decoded as UTF-16 and reported, never read as garbage.
import { describe, expect, it } from 'vitest';
import { decodeRobotsText, parseRobotsTxt } from '../../src/parser/index.js';

function utf16(text: string, endian: 'le' | 'be'): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = endian === 'le' ? 0xff : 0xfe;
  out[1] = endian === 'le' ? 0xfe : 0xff;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 + 2 * i + (endian === 'le' ? 0 : 1)] = c & 0xff;
    out[2 + 2 * i + (endian === 'le' ? 1 : 0)] = c >> 8;
  }
  return out;
}

// The www.myvue.com file of the corpus, as text (its bytes are this, UTF-16LE after FF FE).
const MYVUE = 'Sitemap: https://www.myvue.com/sitemap.xml\r\nUser-agent: *\r\nDisallow: /book-tickets/summary/*\r\nDisallow: /login*\r\n';

describe('UTF-16 with a BOM', () => {
  for (const endian of ['le', 'be'] as const) {
    it(`UTF-16${endian.toUpperCase()}: the rules apply, the sitemap is read, and a warning says the file is not UTF-8`, () => {
      const r = parseRobotsTxt(utf16(MYVUE, endian));
      expect(r.isAllowed('https://www.myvue.com/login/x', 'Googlebot')).toBe(false);
      expect(r.check('/book-tickets/summary/1', 'AnyBot').rule).toEqual({ type: 'disallow', pattern: '/book-tickets/summary/*', line: 3 });
      expect(r.isAllowed('/films', 'AnyBot')).toBe(true);
      expect(r.sitemaps).toEqual(['https://www.myvue.com/sitemap.xml']);
      const codes = r.diagnostics.map((d) => d.code);
      expect(codes).toContain('utf16');
      expect(codes).not.toContain('non-utf8');
      expect(codes).not.toContain('invalid-line');
      expect(r.diagnostics.find((d) => d.code === 'utf16')).toMatchObject({ severity: 'warning', line: 0 });
    });
  }

  it('non-ASCII in a UTF-16 pattern matches the same path as in UTF-8', () => {
    const r = parseRobotsTxt(utf16('User-agent: *\nDisallow: /ツ\n', 'le'));
    expect(r.isAllowed('/%E3%83%84', 'Bot')).toBe(false);
  });

  it('maxBytes counts the file\'s octets and drops the line the cut falls in', () => {
    const body = utf16('User-agent: *\nDisallow: /a\nDisallow: /b\n', 'le');
    // The cut falls inside the third line, "Disallow: /b".
    const r = parseRobotsTxt(body, { maxBytes: 2 * 'User-agent: *\nDisallow: /a\nDisa'.length });
    expect(r.isAllowed('/a', 'Bot')).toBe(false);
    expect(r.isAllowed('/b', 'Bot')).toBe(true);
    const t = r.diagnostics.find((d) => d.code === 'truncated');
    expect(t?.message).toContain(`${2 * 'Disallow: /b\n'.length} bytes`);
  });

  it('an odd trailing octet or lone surrogate does not throw', () => {
    const odd = new Uint8Array([...utf16('User-agent: *\nDisallow: /x\n', 'le'), 0x41]);
    expect(parseRobotsTxt(odd).isAllowed('/x', 'Bot')).toBe(false);
    const lone = utf16('User-agent: *\nDisallow: /\ud800x\nDisallow: /y\n', 'be');
    expect(parseRobotsTxt(lone).isAllowed('/y', 'Bot')).toBe(false);
  });

  it('decodeRobotsText gives tools the text the parser read', () => {
    expect(decodeRobotsText(utf16(MYVUE, 'be'))).toBe(MYVUE);
    expect(decodeRobotsText(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('A');
  });

  it('a lone FF or FE first byte is not a BOM', () => {
    const r = parseRobotsTxt(new Uint8Array([0xff, 0x0a, ...new TextEncoder().encode('User-agent: *\nDisallow: /x\n')]));
    expect(r.isAllowed('/x', 'Bot')).toBe(false);
    expect(r.diagnostics.map((d) => d.code)).toContain('non-utf8');
  });
});
