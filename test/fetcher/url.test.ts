import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { originOf, parseHttpUrl, splitCanonicalUrl, robotsUrlOf, splitHostname, splitOrigin, splitPathStart, splitPlain } from '../../src/fetcher/url.js';
import { UnsupportedSchemeError } from '../../src/fetcher/errors.js';
import { normalEnd } from '../../src/parser/normalize.js';

/** splitCanonicalUrl's scratch read back as one object (undefined when it declines). */
function split(s: string): { origin: string; hostname: string; pathQuery: string; plain: boolean } | undefined {
  if (!splitCanonicalUrl(s)) return undefined;
  return { origin: splitOrigin, hostname: splitHostname, pathQuery: s.slice(splitPathStart), plain: splitPlain };
}

describe('originOf', () => {
  it('lower-cases, punycodes and folds default ports', () => {
    expect(originOf('HTTP://Example.COM:80/a?b')).toBe('http://example.com');
    expect(originOf('https://example.com:443/')).toBe('https://example.com');
    expect(originOf('https://example.com:8443/')).toBe('https://example.com:8443');
    expect(originOf('http://Bücher.example/x')).toBe('http://xn--bcher-kva.example');
    expect(originOf(new URL('http://[::1]:8080/x'))).toBe('http://[::1]:8080');
    expect(robotsUrlOf(originOf('http://A.test/x'))).toBe('http://a.test/robots.txt');
  });

  it('throws a TypeError naming a bad URL, and a clear error for other schemes', () => {
    expect(() => parseHttpUrl('not a url')).toThrow(TypeError);
    expect(() => parseHttpUrl('not a url')).toThrow(/"not a url"/);
    expect(() => parseHttpUrl('mailto:x@example.com')).toThrow(UnsupportedSchemeError);
    expect(() => originOf('file:///etc/passwd')).toThrow(/only http: and https:/);
    try {
      parseHttpUrl('ftp://x.test/');
    } catch (err) {
      expect(err).toBeInstanceOf(TypeError);
      expect((err as UnsupportedSchemeError).code).toBe('ERR_UNSUPPORTED_SCHEME');
    }
  });
});

describe('splitCanonicalUrl (the hot path without new URL)', () => {
  it('splits canonical URLs', () => {
    expect(split('https://a.example/x/y?q=1')).toEqual({ origin: 'https://a.example', hostname: 'a.example', pathQuery: '/x/y?q=1', plain: true });
    expect(split('http://a.test:8080/')).toEqual({ origin: 'http://a.test:8080', hostname: 'a.test', pathQuery: '/', plain: true });
    expect(split('http://a.test:8080/a%2Fb')).toEqual({ origin: 'http://a.test:8080', hostname: 'a.test', pathQuery: '/a%2Fb', plain: false });
  });

  it('the remembered origin never leaks into a longer host or another port', () => {
    expect(split('http://a.test/x')?.origin).toBe('http://a.test');
    expect(split('http://a.test.evil/x')).toEqual({ origin: 'http://a.test.evil', hostname: 'a.test.evil', pathQuery: '/x', plain: true });
    expect(split('http://a.test/y')?.origin).toBe('http://a.test');
    expect(split('http://a.test:80/x')).toBeUndefined();
    expect(split('http://a.test/a/../b')).toBeUndefined();
    // A declined URL leaves the remembered origin as it was.
    expect(split('http://a.test/%')).toEqual({ origin: 'http://a.test', hostname: 'a.test', pathQuery: '/%', plain: false });
  });

  it('leaves to the full parser whatever the URL parser would rewrite', () => {
    for (const s of [
      'http://A.test/',
      'http://a.test',
      'http://a.test:80/',
      'http://a.test:080/',
      'http://a.test/a/../b',
      'http://a.test/%2e%2e/b',
      'http://a.test/a b',
      'http://a.test/#f',
      'http://127.1/',
      'http://xn--bcher-kva.example/',
      'http://u@a.test/',
    ]) {
      expect(split(s), s).toBeUndefined();
    }
  });

  it('agrees with new URL on every string it accepts', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const host = fc.array(fc.oneof(label, fc.stringMatching(/^[0-9][a-z0-9]{0,3}$/)), { minLength: 1, maxLength: 3 });
    const path = fc.string({ unit: fc.constantFrom(...'abcAZ09-._~!$&\'()*+,;=:@/%?#. "<>\\[]^`{|}\t\n\rü\u0000'.split('')), maxLength: 30 });
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), host, fc.option(fc.integer({ min: 0, max: 70000 })), path, (scheme, labels, port, p) => {
        const s = `${scheme}://${labels.join('.')}${port === null ? '' : `:${port}`}/${p}`;
        const got = split(s);
        if (got === undefined) return;
        const u = new URL(s);
        expect(u.href).toBe(s);
        expect(got.origin).toBe(u.origin);
        expect(got.hostname).toBe(u.hostname);
        expect(got.pathQuery).toBe(u.href.slice(u.origin.length));
        // A plain path is in the matcher's normal form, as the gate then takes it without a second look.
        if (got.plain) expect(normalEnd(s, s.length - got.pathQuery.length, s.length)).toBe(s.length);
        else expect(got.pathQuery).toContain('%');
        // Again, now through the remembered-origin shortcut.
        expect(split(s)).toEqual(got);
      }),
      { numRuns: 3000 },
    );
  });
  it('agrees with new URL on hostile strings: whatever it accepts, the URL parser keeps as it is', () => {
    const piece = fc.constantFrom(
      ...'aZ09-._~!$&\'()*+,;=:@/\\%?#[] \t\n\r\u0000ü\u3000'.split(''),
      'xn--', 'XN--', '%2e', '%2E', '%41', '%7e', '..', '/./', '/../', ':80', ':443', ':0', ':65536', 'user:pw@', '@', '127.0.0.1', '[::1]', '0x7f', '.com', 'ß', 'İ',
    );
    const rest = fc.array(piece, { maxLength: 14 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.constantFrom('http://', 'https://', 'HTTP://', 'http:/', 'http:\\\\', 'ftp://'), fc.stringMatching(/^[a-z][a-z0-9.-]{0,10}$/), rest, (scheme, host, r) => {
        const s = `${scheme}${host}${r}`;
        const got = split(s);
        if (got === undefined) return;
        const u = new URL(s);
        expect(u.href).toBe(s);
        // The path as sent: an empty query's `?` too, which URL.search leaves out.
        expect([got.origin, got.hostname, got.pathQuery]).toEqual([u.origin, u.hostname, u.href.slice(u.origin.length)]);
        if (got.plain) expect(normalEnd(s, s.length - got.pathQuery.length, s.length)).toBe(s.length);
      }),
      { numRuns: 20000 },
    );
  });
});
