// Files that are not valid UTF-8 (Latin-1 files, overlong forms, stray octets): RFC 9309 §2.2.2
// compares octets, so each invalid octet is kept as its %XX escape and rules still match.
import { describe, expect, it } from 'vitest';
import { decodeRobotsText, parseRobotsTxt } from '../../src/parser/index.js';

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...new TextEncoder().encode(p)] : p)));

describe('invalid UTF-8 octets', () => {
  it('a Latin-1 rule blocks the URL that carries its octets', () => {
    const r = parseRobotsTxt(bytes('User-agent: *\nDisallow: /caf', [0xe9], '/\n'));
    expect(r.isAllowed('/caf%E9/menu', 'Bot')).toBe(false);
    expect(r.isAllowed('/caf%e9/menu', 'Bot')).toBe(false);
    expect(r.check('/caf%E9/', 'Bot').rule?.pattern).toBe('/caf%E9/');
    expect(r.diagnostics.map((d) => d.code)).toContain('non-utf8');
  });

  it('an overlong form is two invalid octets, matched as written (never as the "/" it spells)', () => {
    const r = parseRobotsTxt(bytes('User-agent: *\nDisallow: /a', [0xc0, 0xaf], 'b\n'));
    expect(r.isAllowed('/a%C0%AFb', 'Bot')).toBe(false);
    expect(r.isAllowed('/a/b', 'Bot')).toBe(true);
  });

  it('surrogates encoded in UTF-8 (ED A0 80) and octets past U+10FFFF are invalid too', () => {
    const r = parseRobotsTxt(bytes('User-agent: *\nDisallow: /s', [0xed, 0xa0, 0x80], '\nDisallow: /t', [0xf4, 0x90, 0x80, 0x80], '\n'));
    expect(r.isAllowed('/s%ED%A0%80', 'Bot')).toBe(false);
    expect(r.isAllowed('/t%F4%90%80%80', 'Bot')).toBe(false);
  });

  it('valid sequences around the invalid octets are kept as text', () => {
    const r = parseRobotsTxt(bytes('User-agent: *\nDisallow: /ツ', [0xff], 'ツ\n'));
    expect(r.isAllowed('/%E3%83%84%FF%E3%83%84', 'Bot')).toBe(false);
    expect(decodeRobotsText(bytes('a', [0xff], 'ツ', [0x80]))).toBe('a%FFツ%80');
  });

  it('a truncated sequence at the end of the file is escaped, not dropped', () => {
    expect(decodeRobotsText(bytes('Disallow: /x', [0xe3, 0x83]))).toBe('Disallow: /x%E3%83');
  });

  it('the user-agent line and the group still work when the file has stray octets', () => {
    const r = parseRobotsTxt(bytes('User-agent: Bot', [0xa0], '\nDisallow: /b\n# caf', [0xe9], '\nUser-agent: *\nDisallow: /\n'));
    expect(r.isAllowed('/a', 'Bot')).toBe(true);
    expect(r.isAllowed('/b', 'Bot')).toBe(false);
  });
});

// Google's reference parser reads each line as a C string, so a NUL ends it there; a crawler that
// followed Google's reading would stay out of /private, and so must we, and lint must say why.
describe('NUL bytes', () => {
  it('end the rule at the NUL, with a diagnostic at its column', () => {
    const r = parseRobotsTxt(bytes('User-agent: *\nDisallow: /private', [0], 'junk\nAllow: /ok\n'));
    expect(r.isAllowed('/private/x', 'Bot')).toBe(false);
    expect(r.check('/private/x', 'Bot').rule).toEqual({ type: 'disallow', pattern: '/private', line: 2 });
    expect(r.isAllowed('/ok', 'Bot')).toBe(true);
    expect(r.diagnostics.filter((d) => d.code === 'nul-byte')).toEqual([
      { line: 2, column: 19, severity: 'warning', code: 'nul-byte', message: expect.stringMatching(/NUL byte ends the line/) },
    ]);
  });

  it('in a user-agent value, a key, or at the start of a line: the line is read up to it', () => {
    const r = parseRobotsTxt('User-agent: Bot\0Evil\nDisallow: /a\n\nUser-agent: *\nDisa\0llow: /b\n\0Disallow: /c\n');
    expect(r.isAllowed('/a', 'Bot')).toBe(false);
    expect(r.isAllowed('/a', 'BotEvil')).toBe(true);
    expect(r.isAllowed('/b', 'Other')).toBe(true);
    expect(r.isAllowed('/c', 'Other')).toBe(true);
    expect(r.diagnostics.filter((d) => d.code === 'nul-byte').map((d) => [d.line, d.column])).toEqual([
      [1, 16],
      [5, 5],
      [6, 1],
    ]);
  });

  it('end the rule in a file with non-ASCII text too (bytes in: the NUL is looked for in the octets)', () => {
    const r = parseRobotsTxt(bytes('# Zugriff für alle – außer ' + 'x'.repeat(5000) + '\nUser-agent: *\nDisallow: /privé', [0], 'junk\n'));
    expect(r.check('/priv%C3%A9/x', 'Bot').rule).toEqual({ type: 'disallow', pattern: '/privé', line: 3 });
    expect(r.isAllowed('/priv%C3%A9junk', 'Bot')).toBe(false);
    expect(r.diagnostics.filter((d) => d.code === 'nul-byte').map((d) => [d.line, d.column])).toEqual([[3, 17]]);
    const plain = parseRobotsTxt(new TextEncoder().encode('# für alle\nUser-agent: *\nDisallow: /x\n'));
    expect(plain.diagnostics.map((d) => d.code)).not.toContain('nul-byte');
  });

  it('in a comment changes nothing and is not reported', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /p # note\0more\n');
    expect(r.check('/p', 'Bot').rule?.pattern).toBe('/p');
    expect(r.diagnostics.map((d) => d.code)).not.toContain('nul-byte');
  });
});
