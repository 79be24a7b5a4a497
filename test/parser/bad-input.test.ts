// Any byte sequence gives a RobotsTxt; a URL that cannot be parsed throws a TypeError naming it.
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';

describe('bad input', () => {
  it('parses empty, binary and odd inputs without throwing', () => {
    for (const body of ['', '\0\0\0', ':::', '\r\r\n\n', '#', 'User-agent:', 'Disallow: *', new Uint8Array([0xff, 0xfe, 0x00, 0x41]), new Uint8Array(0)]) {
      const r = parseRobotsTxt(body);
      expect(r.isAllowed('/x', 'Bot')).toBeTypeOf('boolean');
    }
  });

  it.each(['', 'not a url', 'example.com/x', 'http://', 'https://exa mple.com/', 'http://999.1.1.1/x', 'relative/path'])(
    'throws a TypeError naming %j',
    (url) => {
      const r = parseRobotsTxt('User-agent: *\nDisallow: /\n');
      expect(() => r.isAllowed(url, 'Bot')).toThrow(TypeError);
      expect(() => r.check(url, 'Bot')).toThrow(JSON.stringify(url));
    },
  );

  it('accepts URL objects and non-http absolute URLs', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /x\n');
    expect(r.isAllowed(new URL('https://e.com/x'), 'Bot')).toBe(false);
    expect(r.isAllowed('HTTPS://E.COM/x', 'Bot')).toBe(false);
    expect(r.isAllowed('ftp://e.com/x', 'Bot')).toBe(false);
    expect(r.isAllowed('https://user:pw@e.com:8443/x', 'Bot')).toBe(false);
  });

  it('treats // at the start of a path as a path, not as a host', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: //x\n');
    expect(r.isAllowed('//x/y', 'Bot')).toBe(false);
  });

  it('reads a URL-like object through its href, and an ArrayBuffer body as bytes', () => {
    const r = parseRobotsTxt(new TextEncoder().encode('User-agent: *\nDisallow: /x\n').buffer as unknown as Uint8Array);
    expect(r.isAllowed({ href: 'https://e.com/x' } as unknown as URL, 'Bot')).toBe(false);
    expect(() => r.isAllowed({} as unknown as URL, 'Bot')).toThrow(TypeError);
    expect(() => r.isAllowed(undefined as unknown as string, 'Bot')).toThrow(TypeError);
    expect(parseRobotsTxt(null as unknown as string).isAllowed('/x', 'Bot')).toBe(true);
  });
});
