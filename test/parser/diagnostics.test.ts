// Diagnostics from the matching parse, and lintRobotsTxt's extra checks over the same tokenizer.
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt } from '../../src/parser/index.js';

const summary = (ds: readonly { code: string; line: number; column?: number; severity: string }[]) =>
  ds.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code}`);

describe('diagnostics', () => {
  it('give line, column, severity, a stable code and a message', () => {
    const r = parseRobotsTxt('User-agent: *\n  Foo: bar\nDisallow: page\n');
    expect(r.diagnostics).toEqual([
      { line: 2, column: 3, severity: 'info', code: 'unknown-directive', message: 'Unknown directive "Foo"; the line was ignored.' },
      expect.objectContaining({ line: 3, column: 11, severity: 'warning', code: 'pattern-not-path' }),
    ]);
    expect(Object.isFrozen(r.diagnostics)).toBe(true);
  });

  it('flag an HTML page served as robots.txt once, not each of its lines', () => {
    const r = parseRobotsTxt('<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body>Oops: nothing</body></html>\n');
    expect(summary(r.diagnostics)).toEqual(['0:1 error html-body']);
    expect(r.isAllowed('/x', 'Bot')).toBe(true);
  });

  it('report a bare URL line taken as a Sitemap', () => {
    const r = parseRobotsTxt('User-agent: *\nhttps://e.com/sitemap.xml\n');
    expect(r.sitemaps).toEqual(['https://e.com/sitemap.xml']);
    expect(summary(r.diagnostics)).toEqual(['2:1 warning sitemap-without-key']);
  });
});

describe('lintRobotsTxt', () => {
  it('adds duplicate, conflicting and shadowed rules to the parse diagnostics, sorted by line', () => {
    const body = [
      'Disallow: /early', // 1 rule-outside-group
      'User-agent: *', // 2
      'Disallow: /a', // 3 conflicting (the Allow on 5 wins)
      'Disallow: /a', // 4 duplicate
      'Allow: /a', // 5
      'Disallow: /b', // 6 shadowed by /b* (more octets, same URLs)
      'Disallow: /b*', // 7
      'Allow: /~c', // 8
      'Allow: /%7Ec', // 9 duplicate after normalisation
      'Crawl-delay: fast', // 10 invalid
    ].join('\n');
    expect(summary(lintRobotsTxt(body))).toEqual([
      '1:1 error rule-outside-group',
      '3:1 warning conflicting-rules',
      '4:1 info duplicate-rule',
      '6:1 warning shadowed-rule',
      '9:1 info duplicate-rule',
      '10:14 error invalid-crawl-delay',
    ]);
    // Matching's parse does not pay for these checks.
    expect(summary(parseRobotsTxt(body).diagnostics)).toEqual(['1:1 error rule-outside-group', '10:14 error invalid-crawl-delay']);
  });

  it('reports nothing for a clean file', () => {
    expect(lintRobotsTxt('User-agent: *\nDisallow: /private/\nAllow: /private/public\nSitemap: https://e.com/s.xml\n')).toEqual([]);
  });

  it('reports bytes-level findings: BOM, invalid UTF-8, truncation', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x55, 0x3a, 0xff, 0x0a, ...new TextEncoder().encode('Disallow: /x\nDisallow: /y\n')]);
    expect(lintRobotsTxt(bytes, { maxBytes: 20 }).map((d) => d.code)).toEqual(['bom', 'non-utf8', 'truncated', 'unknown-directive', 'rule-outside-group']);
  });
});
