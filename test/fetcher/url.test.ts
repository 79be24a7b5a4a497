import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { originOf, parseHttpUrl, splitCanonicalUrl, robotsUrlOf } from '../../src/fetcher/url.js';
import { UnsupportedSchemeError } from '../../src/fetcher/errors.js';

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
    expect(splitCanonicalUrl('https://a.example/x/y?q=1')).toEqual({ origin: 'https://a.example', hostname: 'a.example', pathQuery: '/x/y?q=1' });
    expect(splitCanonicalUrl('http://a.test:8080/')).toEqual({ origin: 'http://a.test:8080', hostname: 'a.test', pathQuery: '/' });
  });

  it('the remembered origin never leaks into a longer host or another port', () => {
    expect(splitCanonicalUrl('http://a.test/x')?.origin).toBe('http://a.test');
    expect(splitCanonicalUrl('http://a.test.evil/x')).toEqual({ origin: 'http://a.test.evil', hostname: 'a.test.evil', pathQuery: '/x' });
    expect(splitCanonicalUrl('http://a.test/y')?.origin).toBe('http://a.test');
    expect(splitCanonicalUrl('http://a.test:80/x')).toBeUndefined();
    expect(splitCanonicalUrl('http://a.test/a/../b')).toBeUndefined();
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
      expect(splitCanonicalUrl(s), s).toBeUndefined();
    }
  });

  it('agrees with new URL on every string it accepts', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const host = fc.array(fc.oneof(label, fc.stringMatching(/^[0-9][a-z0-9]{0,3}$/)), { minLength: 1, maxLength: 3 });
    const path = fc.string({ unit: fc.constantFrom(...'abcAZ09-._~!$&\'()*+,;=:@/%?#. "<>\\'.split('')), maxLength: 30 });
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), host, fc.option(fc.integer({ min: 0, max: 70000 })), path, (scheme, labels, port, p) => {
        const s = `${scheme}://${labels.join('.')}${port === null ? '' : `:${port}`}/${p}`;
        const split = splitCanonicalUrl(s);
        if (split === undefined) return;
        const u = new URL(s);
        expect(u.href).toBe(s);
        expect(split.origin).toBe(u.origin);
        expect(split.hostname).toBe(u.hostname);
        expect(split.pathQuery).toBe(u.href.slice(u.origin.length));
        // Again, now through the remembered-origin shortcut.
        expect(splitCanonicalUrl(s)).toEqual(split);
      }),
      { numRuns: 3000 },
    );
  });
});
