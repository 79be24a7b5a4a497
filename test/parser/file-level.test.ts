// Size (RFC 9309 §2.5), Crawl-delay and Sitemap.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BYTES, parseRobotsTxt } from '../../src/parser/index.js';

describe('size', () => {
  it('parses at least 500 KiB, and by default ignores what lies past it, dropping a partial last line', () => {
    expect(DEFAULT_MAX_BYTES).toBe(512_000);
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = '#' + 'x'.repeat(98) + '\n'; // 100 bytes
    let body = head + filler.repeat(Math.floor((512_000 - 1_000 - head.length) / 100));
    body += '#'.repeat(512_000 - 10 - body.length - 1) + '\n'; // the next line starts 10 bytes before the limit
    expect(body.length).toBe(512_000 - 10);
    body += 'Disallow: /straddles-the-limit\nDisallow: /late\n';
    const r = parseRobotsTxt(new TextEncoder().encode(body));
    expect(r.isAllowed('/early', 'Bot')).toBe(false);
    expect(r.isAllowed('/straddles-the-limit', 'Bot')).toBe(true);
    expect(r.isAllowed('/straddles', 'Bot')).toBe(true);
    expect(r.isAllowed('/late', 'Bot')).toBe(true);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['truncated']);
    // The same cut for a string body (counted in UTF-8 octets).
    expect(parseRobotsTxt(body).isAllowed('/straddles', 'Bot')).toBe(true);
  });

  it('keeps a whole line that ends exactly at the limit, and honours maxBytes', () => {
    const body = 'User-agent: *\nDisallow: /a\nDisallow: /b\n';
    const r = parseRobotsTxt(body, { maxBytes: 'User-agent: *\nDisallow: /a'.length });
    expect(r.isAllowed('/a', 'Bot')).toBe(false);
    expect(r.isAllowed('/b', 'Bot')).toBe(true);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['truncated']);
    expect(parseRobotsTxt(body, { maxBytes: Infinity }).diagnostics).toEqual([]);
  });

  it('counts multi-byte characters in octets', () => {
    const body = 'User-agent: *\nDisallow: /ツツ\nDisallow: /z\n';
    const cut = new TextEncoder().encode('User-agent: *\nDisallow: /ツツ').length;
    expect(parseRobotsTxt(body, { maxBytes: cut }).isAllowed('/ツツ', 'Bot')).toBe(false);
    expect(parseRobotsTxt(body, { maxBytes: cut - 1 }).isAllowed('/ツツ', 'Bot')).toBe(true);
  });
});

describe('crawl-delay', () => {
  it('is the value of the group that applies, in seconds, decimals allowed', () => {
    const r = parseRobotsTxt('User-agent: a\nCrawl-delay: 2.5\nDisallow: /a\n\nUser-agent: *\nCrawl-delay: 10\n');
    expect(r.crawlDelay('a/1.0')).toBe(2.5);
    expect(r.crawlDelay('other')).toBe(10);
    expect(parseRobotsTxt('User-agent: a\nCrawl-delay: 1\n').crawlDelay('b')).toBeUndefined();
    expect(r.groups.map((g) => g.crawlDelay)).toEqual([{ seconds: 2.5, line: 2 }, { seconds: 10, line: 6 }]);
  });

  it('reads a delay past what a double holds (1e999) as longer than any crawl, as 1e23 is, not as none', () => {
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: 1e999\n').crawlDelay('Bot')).toBe(1e300);
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: 99999999999999999999999\n').crawlDelay('Bot')).toBe(1e23);
  });

  it.each(['-1', 'soon', 'Infinity', 'NaN', ''])('ignores %j with a diagnostic', (value) => {
    const r = parseRobotsTxt(`User-agent: *\nCrawl-delay: ${value}\n`);
    expect(r.crawlDelay('Bot')).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([['invalid-crawl-delay', 'error']]);
  });

  it('applies to the user-agent lines above it in its group', () => {
    const r = parseRobotsTxt('User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n');
    expect(r.crawlDelay('a')).toBe(5);
    expect(r.crawlDelay('b')).toBeUndefined();
    expect(r.isAllowed('/x', 'a')).toBe(false);
  });
});

describe('sitemaps', () => {
  it('lists every Sitemap line wherever it stands, case preserved, duplicates once', () => {
    const r = parseRobotsTxt('Sitemap: https://e.com/A.xml\nUser-agent: *\nSitemap: https://e.com/b.xml\nDisallow: /\nsitemap: https://e.com/A.xml\n');
    expect(r.sitemaps).toEqual(['https://e.com/A.xml', 'https://e.com/b.xml']);
  });

  it('resolves a relative Sitemap against the robots.txt URL, or drops it with a diagnostic', () => {
    const body = 'Sitemap: /maps/Site.xml\n';
    const resolved = parseRobotsTxt(body, { url: 'https://e.com/robots.txt' });
    expect(resolved.sitemaps).toEqual(['https://e.com/maps/Site.xml']);
    expect(resolved.diagnostics.map((d) => [d.code, d.severity])).toEqual([['relative-sitemap', 'info']]);
    const dropped = parseRobotsTxt(body);
    expect(dropped.sitemaps).toEqual([]);
    expect(dropped.diagnostics.map((d) => [d.code, d.severity])).toEqual([['relative-sitemap', 'error']]);
  });
});
