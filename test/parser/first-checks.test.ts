// A policy's first checks are answered by a direct scan of its rules, later ones by its index
// (src/parser/policy.ts). Both must give the same answer, the deciding rule and its line included,
// and a policy kept apart from its file (policyFor) must answer as the file does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';
import { INDEX_AFTER_CHECKS } from '../../src/parser/policy.js';
import { referenceCheck, type ReferenceRule } from './reference.js';

const pieces = ['/', 'a', 'b', 'A', '*', '$', '%2A', '%24', '%61', '%2F', '%2f', '~', '%7E', 'ä', '%C3%A4', '?', '=', '.', '-', '%'];
const patternArb = fc.array(fc.constantFrom(...pieces), { minLength: 0, maxLength: 7 }).map((p) => '/' + p.join(''));
const words = ['abc', 'abd', 'html', '.php', '%C3%A4x', 'aaa', 'a?b'];
const wildcardArb = fc
  .tuple(fc.constantFrom('/', '/a', ''), fc.array(fc.constantFrom(...words, 'a', '*', '/'), { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([head, parts, anchored]) => `${head}*${parts.join('')}${anchored ? '$' : ''}`);
const ruleArb = fc.record({ allow: fc.boolean(), pattern: fc.oneof(patternArb, wildcardArb) });
const pathArb = fc
  .array(fc.constantFrom('/', 'a', 'b', 'A', '%2A', '%24', '%61', '%2F', '~', 'ä', '?', '=', '-', ...words), { maxLength: 10 })
  .map((p) => '/' + p.join(''))
  .filter((p) => p !== '/robots.txt' && !/\/\.\.?(?:[/?]|$)/.test(p.split('?')[0]! + (p.includes('?') ? '?' : '')));

const file = (rules: ReferenceRule[]) => 'User-agent: *\n' + rules.map((x) => `${x.allow ? 'Allow' : 'Disallow'}: ${x.pattern}`).join('\n');
/** Enough checks that the next one goes through the index. */
function warm(r: ReturnType<typeof parseRobotsTxt>): void {
  for (let i = 0; i <= INDEX_AFTER_CHECKS; i++) r.check(`/warm-${i}`, 'Bot');
}

describe('first checks (scan) and later checks (index)', () => {
  it("one file's first check leaves nothing it compiled to the next file's", () => {
    // Rule 0 of each file needs compiling (an escape); a pattern left from the other file under the
    // same rule id would decide wrongly.
    const a = parseRobotsTxt('User-agent: *\nDisallow: /%7Ea*x\n');
    const b = parseRobotsTxt('User-agent: *\nDisallow: /%7Eb*y\n');
    expect(a.check('/~a-x', 'Bot').rule).toEqual({ type: 'disallow', pattern: '/%7Ea*x', line: 2 });
    expect(b.check('/~a-x', 'Bot')).toMatchObject({ allowed: true, rule: null });
    expect(b.check('/~b-y', 'Bot').rule).toEqual({ type: 'disallow', pattern: '/%7Eb*y', line: 2 });
    expect(a.check('/~b-y', 'Bot')).toMatchObject({ allowed: true, rule: null });
  });

  it('give the same result, rule and line included, and agree with the reference matcher', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 5, maxLength: 60 }), fc.array(pathArb, { minLength: 1, maxLength: 6 }), (rules, paths) => {
        const body = file(rules);
        const indexed = parseRobotsTxt(body);
        warm(indexed);
        for (const p of paths) {
          const scanned = parseRobotsTxt(body).check(p, 'Bot');
          expect({ p, ...scanned }).toEqual({ p, ...indexed.check(p, 'Bot') });
          const expected = referenceCheck(rules, p);
          expect({ p, allowed: scanned.allowed, matched: scanned.rule !== null }).toEqual({ p, allowed: expected.allowed, matched: expected.priority >= 0 });
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('ties go the same way: more octets, then Allow, then the longer literal start, then the earlier line', () => {
    // `/ab*` and `/a*b` have 4 octets each; the index tries the longer prefix `/ab` first.
    const body = 'User-agent: *\nDisallow: /a*b\nDisallow: /ab*\nDisallow: /ab*\nAllow: /x*\nAllow: /x*';
    const scanned = parseRobotsTxt(body);
    const indexed = parseRobotsTxt(body);
    warm(indexed);
    for (const r of [scanned, indexed]) {
      expect(r.check('/abc', 'Bot').rule).toEqual({ type: 'disallow', pattern: '/ab*', line: 3 });
      expect(r.check('/xy', 'Bot').rule).toEqual({ type: 'allow', pattern: '/x*', line: 5 });
    }
  });

  it('a full tie among bucketed wildcard rules goes to the earlier line, whichever trigram comes first', () => {
    // 18 wildcard rules under `/` get trigram buckets; `/aaazzz` meets `aaa` (line 3) before `zzz` (line 2).
    const filler = Array.from({ length: 16 }, (_, i) => `Disallow: /*q${String.fromCharCode(97 + i)}q`);
    const body = ['User-agent: *', 'Disallow: /*zzz', 'Disallow: /*aaa', ...filler].join('\n');
    const scanned = parseRobotsTxt(body);
    const indexed = parseRobotsTxt(body);
    warm(indexed);
    for (const r of [scanned, indexed]) expect(r.check('/aaazzz', 'Bot').rule?.line).toBe(2);
  });

  it('a wildcard piece never starts inside a %XX escape, scanned or indexed', () => {
    const body = 'User-agent: *\nDisallow: /*A4\nDisallow: /x*3%A4$\nDisallow: /q*$\nDisallow: /q$\nAllow: /*';
    const scanned = parseRobotsTxt(body);
    const indexed = parseRobotsTxt(body);
    warm(indexed);
    for (const r of [scanned, indexed]) {
      // `3%A4` would end the path only by starting on the `3` of `%C3`: no match, so `Allow: /*` decides.
      expect(r.check('/x%C3%A4', 'Bot').rule?.line).toBe(6);
      expect(r.check('/x3%A4', 'Bot').rule?.line).toBe(3);
      expect(r.check('/y%C3%A4', 'Bot').allowed).toBe(true);
      expect(r.check('/zA4', 'Bot').rule?.line).toBe(2);
      expect(r.check('/q', 'Bot').rule?.line).toBe(4); // `/q*$` has an octet more than `/q$`
      expect(r.check('/qq', 'Bot').rule?.line).toBe(4);
    }
  });

  it('the adversarial file is answered on its first check without compiling each copy', () => {
    const line = 'Disallow: /*a*a*a*a*a*a*a*a*a*a*b\n';
    const r = parseRobotsTxt('User-agent: *\n' + line.repeat(14_000));
    expect(r.check('/' + 'a'.repeat(2000), 'Bot').allowed).toBe(true);
    expect(r.check('/' + 'a'.repeat(50) + 'b', 'Bot').rule?.line).toBe(2);
  });
});

describe('policyFor', () => {
  const body = [
    'User-agent: MyBot-News', 'Disallow: /news-only', '',
    'User-agent: MyBot', 'Crawl-delay: 3', 'Disallow: /bot-only', 'Allow: /bot-only/open', '',
    'User-agent: *', 'Disallow: /',
  ].join('\n');

  it('answers as check does for the same User-Agent, apart from the file', () => {
    const r = parseRobotsTxt(body);
    const p = r.policyFor('MyBot/2.0 (+https://example.com)');
    for (const url of ['/bot-only/x', '/bot-only/open/1', '/news-only', '/', '/robots.txt', 'https://e.example/bot-only?q']) {
      expect(p.check(url)).toEqual(r.check(url, 'MyBot/2.0'));
      expect(p.isAllowed(url)).toBe(r.isAllowed(url, 'MyBot/2.0'));
    }
    expect(p.crawlDelay).toBe(3);
    expect(p.group).toEqual({ userAgents: ['MyBot'], lines: [4] });
  });

  it('takes an ordered list of tokens: the first one some group names decides, else *', () => {
    const r = parseRobotsTxt(body);
    expect(r.policyFor(['MyBot-News', 'MyBot']).group?.lines).toEqual([1]);
    expect(r.policyFor(['Unnamed', 'MyBot']).group?.lines).toEqual([4]);
    expect(r.policyFor(['Unnamed', 'Other']).group?.lines).toEqual([9]);
    expect(r.policyFor(['Unnamed']).isAllowed('/x')).toBe(false);
    expect(r.policyFor([]).group?.lines).toEqual([9]);
  });

  it('keeps deciding after many checks (its own index) exactly as before', () => {
    const rules = Array.from({ length: 40 }, (_, i) => `${i % 3 ? 'Disallow' : 'Allow'}: /p${i}/*x`).join('\n');
    const r = parseRobotsTxt('User-agent: *\n' + rules);
    const p = r.policyFor('Bot');
    const urls = Array.from({ length: 60 }, (_, i) => `/p${i % 45}/a${i}x`);
    const first = urls.map((u) => p.check(u));
    expect(urls.map((u) => p.check(u))).toEqual(first);
    expect(first).toEqual(urls.map((u) => r.check(u, 'Bot')));
  });

  it('rejects what is not a token list', () => {
    const r = parseRobotsTxt(body);
    expect(() => r.policyFor(42 as never)).toThrow(TypeError);
    expect(() => r.policyFor([1] as never)).toThrow(TypeError);
  });
});
