// RFC 9309 §2.2 line syntax, and the leniency real files need (each reported as a diagnostic).
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';

const codes = (body: string | Uint8Array) => parseRobotsTxt(body).diagnostics.map((d) => d.code);

describe('lines', () => {
  it('reads keys case-insensitively and ignores white space around key, colon and value', () => {
    const r = parseRobotsTxt('  uSeR-aGeNt  :   FooBot  \n\t DISALLOW\t:\t/private  \n');
    expect(r.isAllowed('/private/x', 'FooBot')).toBe(false);
    expect(r.isAllowed('/public', 'FooBot')).toBe(true);
    expect(r.diagnostics).toEqual([]);
  });

  it('treats # as the start of a comment, on its own line or after a value', () => {
    const r = parseRobotsTxt('# intro\nUser-agent: FooBot # the bot\nDisallow: /a # not /a#b\n#Disallow: /b\n');
    expect(r.isAllowed('/a', 'FooBot')).toBe(false);
    expect(r.isAllowed('/b', 'FooBot')).toBe(true);
    expect(r.groups[0]!.rules).toEqual([{ type: 'disallow', pattern: '/a', line: 3 }]);
  });

  it.each([
    ['LF', '\n'],
    ['CR LF', '\r\n'],
    ['lone CR', '\r'],
  ])('ends lines at %s', (_name, eol) => {
    const r = parseRobotsTxt(['User-agent: FooBot', 'Disallow: /a', '', 'User-agent: *', 'Disallow: /b'].join(eol));
    expect(r.isAllowed('/a', 'FooBot')).toBe(false);
    expect(r.isAllowed('/b', 'FooBot')).toBe(true);
    expect(r.isAllowed('/b', 'Other')).toBe(false);
    expect(r.groups.map((g) => g.userAgents[0]!.line)).toEqual([1, 4]);
  });

  it('counts lines the same way with mixed line endings', () => {
    const r = parseRobotsTxt('User-agent: a\r\nDisallow: /1\rDisallow: /2\nDisallow: /3\r\n');
    expect(r.groups[0]!.rules.map((x) => x.line)).toEqual([2, 3, 4]);
  });

  it('skips a UTF-8 byte-order mark (bytes or string) and reports it', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('User-agent: *\nDisallow: /x\n')]);
    const r = parseRobotsTxt(bytes);
    expect(r.isAllowed('/x', 'Bot')).toBe(false);
    expect(codes(bytes)).toEqual(['bom']);
    expect(parseRobotsTxt('\uFEFFUser-agent: *\nDisallow: /x\n').isAllowed('/x', 'Bot')).toBe(false);
  });

  it('never throws on invalid UTF-8, and reports it', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('User-agent: *\nDisallow: /caf'), 0xe9, 0xff, 0x0a, ...new TextEncoder().encode('Disallow: /y\n')]);
    const r = parseRobotsTxt(bytes);
    expect(r.isAllowed('/y', 'Bot')).toBe(false);
    expect(codes(bytes)).toContain('non-utf8');
  });
});

describe('leniency, each reported', () => {
  it.each(['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'])('accepts the misspelling %s', (key) => {
    const r = parseRobotsTxt(`User-agent: *\n${key}: /x\n`);
    expect(r.isAllowed('/x', 'Bot')).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['misspelled-directive', 2, 1]]);
  });

  it.each(['useragent', 'user agent', 'UserAgent'])('accepts the misspelling %s', (key) => {
    const r = parseRobotsTxt(`${key}: FooBot\nDisallow: /x\n`);
    expect(r.isAllowed('/x', 'FooBot')).toBe(false);
    expect(r.diagnostics[0]!.code).toBe('misspelled-directive');
  });

  it('does not accept other misspellings', () => {
    const r = parseRobotsTxt('User-agent: *\nDesallow: /x\n');
    expect(r.isAllowed('/x', 'Bot')).toBe(true);
    expect(codes('User-agent: *\nDesallow: /x\n')).toEqual(['unknown-directive']);
  });

  it('accepts a missing colon between key and value, with the column where it belongs', () => {
    const r = parseRobotsTxt('user-agent FooBot\ndisallow /x\n');
    expect(r.isAllowed('/x', 'FooBot')).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
      ['missing-colon', 1, 11],
      ['missing-colon', 2, 9],
    ]);
  });

  it('ignores lines that are not key-value pairs, and reports them', () => {
    const r = parseRobotsTxt('User-agent: *\nthis is prose\n: /x\nDisallow: /y\n');
    expect(r.isAllowed('/y', 'Bot')).toBe(false);
    expect(codes('User-agent: *\nthis is prose\n: /x\n')).toEqual(['invalid-line', 'invalid-line']);
  });
});
