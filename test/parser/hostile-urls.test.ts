// URLs a caller or an attacker may hand to check/isAllowed: every one either gets the verdict of
// the path the request would really carry, or a TypeError that names it. Never a silent verdict.
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';

const robots = parseRobotsTxt('User-agent: *\nDisallow: /a\nAllow: /a/ok$\nDisallow: /%\nDisallow: /q$x\n');
const verdict = (url: string | URL) => robots.check(url, 'Bot');

describe('URLs without a host and a path are invalid, not matched as paths', () => {
  for (const url of ['javascript:alert(1)', 'mailto:a@b', 'file:///a', 'file://h/a', 'data:text/plain,a', 'blob:http://h/a', 'about:blank', 'urn:a:b']) {
    it(`${url}: TypeError naming it`, () => {
      expect(() => verdict(url)).toThrow(TypeError);
      expect(() => verdict(url)).toThrow(JSON.stringify(url));
      expect(() => robots.isAllowed(url, 'Bot')).toThrow(TypeError);
      expect(() => verdict(new URL(url))).toThrow(TypeError);
    });
  }
  it('a scheme in upper case is still http', () => {
    expect(verdict('HTTP://H/a').allowed).toBe(false);
  });
  it('other protocols with a host and a path are matched (RFC 9309 §2.3 names FTP)', () => {
    expect(verdict('ftp://h/a').allowed).toBe(false);
    expect(verdict('ws://h/b').allowed).toBe(true);
  });
});

describe('odd but valid http URLs are matched on the path they carry', () => {
  const cases: [string, boolean][] = [
    ['http://user:pw@h/a', false],
    ['http://[::1]:8080/a', false],
    ['http://[::1]/b', true],
    ['http://xn--n3h.com/a', false],
    ['http://☃.com/a', false],
    ['http://h:8080/a/ok', true],
    ['http://h/a/ok#frag', true],
    ['http://h/a/ok?', false], // the lone ? is part of the URL: /a/ok$ no longer matches
    ['http://h?', true],
    ['http://h', true],
    ['http://h/x/../a', false],
    ['http://h/%61', false],
    ['http://h\\a', false],
    ['//a', true], // a path beginning with '//', not a host named a
    ['http://h//a', true],
    ['http://h/%', false],
    ['http://h/%25', false],
    ['http://h/q$x', false],
  ];
  for (const [url, allowed] of cases) {
    it(`${url} -> ${allowed ? 'allowed' : 'disallowed'}`, () => expect(verdict(url).allowed).toBe(allowed));
  }
});

describe('strings that are no URL at all', () => {
  for (const url of ['', '?', 'a', 'http:', 'https://', 'http://h:99999/a', 'http://ex ample/', 'http://xn--zz/']) {
    it(`${JSON.stringify(url)}: TypeError naming it`, () => expect(() => verdict(url)).toThrow(TypeError));
  }
  it('a very long URL is matched, not refused', () => {
    expect(verdict('http://h/a' + 'b'.repeat(1_000_000)).allowed).toBe(false);
  });
});

describe('the fast path for strings agrees with WHATWG URL (what fetch sends)', () => {
  it("a ' is the same octet as %27, in the path and in the query (WHATWG URL sends it raw in a path, as %27 in a query)", () => {
    const r = parseRobotsTxt("User-agent: *\nDisallow: /*?q='\nDisallow: /p'\n");
    expect(r.check("http://h/search?q='x", 'Bot').allowed).toBe(false);
    expect(r.check("/search?q='x", 'Bot').allowed).toBe(false);
    expect(r.check('/search?q=%27x', 'Bot').allowed).toBe(false);
    expect(r.check(new URL("http://h/search?q='x"), 'Bot').allowed).toBe(false);
    expect(r.check("http://h/p'", 'Bot').rule?.pattern).toBe("/p'");
    expect(r.check('http://h/p%27', 'Bot').allowed).toBe(false);
    expect(r.check('http://h/search?q=x', 'Bot').allowed).toBe(true);
  });
});
