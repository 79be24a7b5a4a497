// RFC 9309 §2.2.2: which rule decides.
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';
import { referenceCheck, type ReferenceRule } from './reference.js';

describe('rules', () => {
  it('the match with the most octets wins, whatever the order in the file', () => {
    const r = parseRobotsTxt('User-agent: *\nAllow: /folder/page\nDisallow: /folder/\nDisallow: /\nAllow: /folder/page/deeper\n');
    expect(r.check('/folder/page.html', 'Bot')).toMatchObject({ allowed: true, rule: { type: 'allow', pattern: '/folder/page', line: 2 } });
    expect(r.check('/folder/other', 'Bot')).toMatchObject({ allowed: false, rule: { pattern: '/folder/', line: 3 } });
    expect(r.check('/x', 'Bot')).toMatchObject({ allowed: false, rule: { pattern: '/', line: 4 } });
    expect(r.check('/folder/page/deeper/x', 'Bot').rule?.line).toBe(5);
  });

  it('counts wildcard and anchor octets in the pattern', () => {
    const r = parseRobotsTxt('User-agent: *\nAllow: /\nDisallow: /*\nAllow: /a$\nDisallow: /a\n');
    expect(r.isAllowed('/b', 'Bot')).toBe(false); // "/*" (2) beats "/" (1)
    expect(r.isAllowed('/a', 'Bot')).toBe(true); // "/a$" (3) beats "/a" (2)
  });

  it('on a tie, Allow wins', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /page\nAllow: /page\nDisallow: /x*y\nAllow: /x*y\n');
    expect(r.check('/page', 'Bot')).toMatchObject({ allowed: true, rule: { type: 'allow', line: 3 } });
    expect(r.isAllowed('/xzy', 'Bot')).toBe(true);
  });

  it('/robots.txt is always allowed', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /\n');
    expect(r.check('/robots.txt', 'Bot')).toMatchObject({ allowed: true, rule: null });
    expect(r.isAllowed('https://example.com/robots.txt', 'Bot')).toBe(true);
    // That URI alone (§2.2.2): with a query it is another resource, decided by the rules.
    expect(r.check('/robots.txt?x=1', 'Bot')).toMatchObject({ allowed: false, rule: { type: 'disallow', line: 2 } });
    expect(r.isAllowed('/robots.txt.bak', 'Bot')).toBe(false);
  });

  it('paths are case-sensitive', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /Private\n');
    expect(r.isAllowed('/Private', 'Bot')).toBe(false);
    expect(r.isAllowed('/private', 'Bot')).toBe(true);
  });

  it('the match covers path and query, never the fragment', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /search?q=\nDisallow: /*?sid=\nDisallow: /frag\n');
    expect(r.isAllowed('https://e.com/search?q=cats', 'Bot')).toBe(false);
    expect(r.isAllowed('https://e.com/search', 'Bot')).toBe(true);
    expect(r.isAllowed('https://e.com/list?sid=1', 'Bot')).toBe(false);
    expect(r.isAllowed('https://e.com/list#?sid=1', 'Bot')).toBe(true);
    expect(r.isAllowed('/x#/frag', 'Bot')).toBe(true);
    expect(r.isAllowed('/frag#x', 'Bot')).toBe(false);
  });

  it('a # in a rule starts a comment, so the rule is what comes before it', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /page#top\n');
    expect(r.groups[0]!.rules[0]!.pattern).toBe('/page');
    expect(r.isAllowed('/page#top', 'Bot')).toBe(false);
    expect(r.isAllowed('/pag#e', 'Bot')).toBe(true);
  });

  it('a URL with an empty path is /', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /$\n');
    expect(r.isAllowed('https://example.com', 'Bot')).toBe(false);
    expect(r.isAllowed('https://example.com?x', 'Bot')).toBe(true);
    expect(r.isAllowed('https://example.com/', 'Bot')).toBe(false);
  });

  it('matches the path a request will carry: dot segments resolved as WHATWG URL does', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /private/\n');
    expect(r.isAllowed('https://e.com/public/../private/x', 'Bot')).toBe(false);
    expect(r.isAllowed('/public/./../private/x', 'Bot')).toBe(false);
    expect(r.isAllowed('/.well-known/x', 'Bot')).toBe(true);
  });

  it('identical rules are merged, keeping the first line', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /x\nDisallow: /x\n');
    expect(r.check('/x', 'Bot').rule).toEqual({ type: 'disallow', pattern: '/x', line: 2 });
    expect(r.groups[0]!.rules).toHaveLength(2);
  });

  it('checks a 30,000-rule file through its index with the same answers as scanning every rule', () => {
    const lines = ['User-agent: *'];
    const rules: ReferenceRule[] = [];
    for (let i = 0; i < 30_000; i++) {
      const allow = i % 3 === 0;
      const pattern = `/d${i % 100}/p${i}${i % 7 ? '' : '*.html'}${i % 11 ? '' : '$'}`;
      lines.push(`${allow ? 'Allow' : 'Disallow'}: ${pattern}`);
      rules.push({ allow, pattern });
    }
    const r = parseRobotsTxt(lines.join('\n'), { maxBytes: Infinity });
    const paths = ['/', '/d9/', '/d5/p105', '/d5/p1050/x', '/d0/p0/a/b.html', '/d0/p0', '/d0/p0.html', '/d22/p22', '/d22/p2222x', '/d3/p3/q.html?x'];
    for (let i = 0; i < 15; i++) paths.push(`/d${(i * 37) % 100}/p${(i * 7919) % 31_000}${i % 4 ? '' : '/z.html'}`);
    for (const path of paths) {
      const expected = referenceCheck(rules, path);
      const got = r.check(path, 'Bot');
      expect({ path, allowed: got.allowed }).toEqual({ path, allowed: expected.allowed });
      expect(got.rule === null).toBe(expected.priority < 0);
    }
  });

  it('finds the right rule among 2,000 wildcard rules sharing one prefix (trigram buckets)', () => {
    const lines = ['User-agent: *', 'Allow: /'];
    const rules: ReferenceRule[] = [{ allow: true, pattern: '/' }];
    for (let i = 0; i < 2_000; i++) {
      const allow = i % 5 === 0;
      const pattern = i % 3 ? `/*.w${i}.html` : `/*/s${i}/*x${i % 10}${i % 2 ? '$' : ''}`;
      lines.push(`${allow ? 'Allow' : 'Disallow'}: ${pattern}`);
      rules.push({ allow, pattern });
    }
    const r = parseRobotsTxt(lines.join('\n'));
    const paths = ['/', '/a.w7.html', '/a/b.w10.html?x', '/a.w10.htm', '/q/s3/zx3', '/q/s3/zx3/more', '/q/s9/x9', '/q/s9/x9y', '/s6/x6', '/.w1999.html', '/w5.html'];
    for (const path of paths) {
      const expected = referenceCheck(rules, path);
      expect({ path, allowed: r.isAllowed(path, 'Bot') }).toEqual({ path, allowed: expected.allowed });
    }
  });

  it('answers the adversarial 500 KiB wildcard file on a 2,000-octet path (no backtracking blow-up)', () => {
    const line = 'Disallow: /*a*a*a*a*a*a*a*a*a*a*b\n';
    const body = 'User-agent: *\n' + line.repeat(Math.floor((500 * 1024 - 14) / line.length));
    const r = parseRobotsTxt(body);
    expect(r.diagnostics).toEqual([]);
    expect(r.isAllowed('/' + 'a'.repeat(2000), 'Bot')).toBe(true);
    expect(r.check('/' + 'a'.repeat(2000) + 'b', 'Bot')).toMatchObject({ allowed: false, rule: { line: 2 } });
    expect(r.isAllowed('/' + 'a'.repeat(9) + 'b', 'Bot')).toBe(true);
    expect(r.isAllowed('/' + 'a'.repeat(10) + 'b', 'Bot')).toBe(false);
  });
});
