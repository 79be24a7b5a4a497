// RFC 9309 §2.2.2 (percent normal form) and §2.2.3 (special characters).
import { describe, expect, it } from 'vitest';
import { matchablePath, parseRobotsTxt } from '../../src/parser/index.js';

describe('special characters', () => {
  const r = parseRobotsTxt(
    [
      'User-agent: *',
      'Disallow: /*.php',
      'Disallow: /fish*.html$',
      'Disallow: /exact$',
      'Disallow: /mid$dle',
      'Disallow: /path/file-with-a-%2A.html',
      'Disallow: /path/foo-%24',
      'Disallow: /**/deep',
    ].join('\n'),
  );

  it('* matches any run of octets, including none', () => {
    expect(r.isAllowed('/index.php', 'Bot')).toBe(false);
    expect(r.isAllowed('/a/b/c.php?x=1', 'Bot')).toBe(false);
    expect(r.isAllowed('/.php', 'Bot')).toBe(false);
    expect(r.isAllowed('/index.html', 'Bot')).toBe(true);
    expect(r.isAllowed('/x/deep', 'Bot')).toBe(false);
    expect(r.isAllowed('//deep', 'Bot')).toBe(false);
  });

  it('$ at the end anchors the pattern to the end of the URL', () => {
    expect(r.isAllowed('/fish.html', 'Bot')).toBe(false);
    expect(r.isAllowed('/fishy/salmon.html', 'Bot')).toBe(false);
    expect(r.isAllowed('/fish.html?id=1', 'Bot')).toBe(true);
    expect(r.isAllowed('/exact', 'Bot')).toBe(false);
    expect(r.isAllowed('/exactly', 'Bot')).toBe(true);
  });

  it('$ elsewhere is an ordinary octet', () => {
    expect(r.isAllowed('/mid$dle', 'Bot')).toBe(false);
    expect(r.isAllowed('/mid%24dle', 'Bot')).toBe(false);
    expect(r.isAllowed('/middle', 'Bot')).toBe(true);
  });

  it('a percent-encoded * or $ in a pattern matches that character literally', () => {
    expect(r.isAllowed('/path/file-with-a-*.html', 'Bot')).toBe(false);
    expect(r.isAllowed('/path/file-with-a-%2A.html', 'Bot')).toBe(false);
    expect(r.isAllowed('/path/file-with-a-b.html', 'Bot')).toBe(true);
    expect(r.isAllowed('/path/foo-$', 'Bot')).toBe(false);
    expect(r.isAllowed('/path/foo-', 'Bot')).toBe(true);
  });
});

describe('percent normal form', () => {
  it('non-ASCII, its UTF-8 escapes and lower-case escapes all match one rule', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /foo/bar/ツ\n');
    for (const u of ['/foo/bar/ツ', '/foo/bar/%E3%83%84', '/foo/bar/%e3%83%84', 'https://e.com/foo/bar/ツ?x']) {
      expect(r.isAllowed(u, 'Bot'), u).toBe(false);
    }
    const encoded = parseRobotsTxt('User-agent: *\nDisallow: /foo/bar/%e3%83%84\n');
    expect(encoded.isAllowed('/foo/bar/ツ', 'Bot')).toBe(false);
  });

  // Google's reference parser leaves %7E encoded, so for it /%7Euser/ and /~user/ differ; RFC 3986
  // §6.2.2.2 makes escapes of unreserved characters equivalent, and RFC 9309 §2.2.2 compares normal forms.
  it('escapes of unreserved characters are decoded (where Google differs, we follow the RFC)', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /~user/\nDisallow: /%41bc\n');
    expect(r.isAllowed('/%7Euser/notes', 'Bot')).toBe(false);
    expect(r.isAllowed('/%7euser/notes', 'Bot')).toBe(false);
    expect(r.isAllowed('/Abc', 'Bot')).toBe(false);
  });

  it('%2F and other reserved characters stay encoded', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /a%2Fb\nDisallow: /q%3Fx\n');
    expect(r.isAllowed('/a%2fb', 'Bot')).toBe(false);
    expect(r.isAllowed('/a/b', 'Bot')).toBe(true);
    expect(r.isAllowed('/q?x', 'Bot')).toBe(true);
    expect(r.isAllowed('/q%3Fx', 'Bot')).toBe(false);
  });

  it('characters not allowed raw in a URI compare equal to their escapes', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /a|b\nDisallow: /c%20d\n');
    expect(r.isAllowed('/a%7Cb', 'Bot')).toBe(false);
    expect(r.isAllowed('/c d', 'Bot')).toBe(false);
  });

  it('matchablePath gives the normalised path + query of a URL or path', () => {
    expect(matchablePath('https://example.com')).toBe('/');
    expect(matchablePath('https://example.com/ä?q=%7e#frag')).toBe('/%C3%A4?q=~');
    expect(matchablePath(new URL('https://example.com/a/../b%2f?x'))).toBe('/b%2F?x');
    expect(matchablePath('/already/normal?x=1')).toBe('/already/normal?x=1');
    const r = parseRobotsTxt('User-agent: *\nDisallow: /%C3%A4\n');
    expect(r.isAllowed(matchablePath(new URL('https://e.com/ä')), 'Bot')).toBe(false);
  });
});
