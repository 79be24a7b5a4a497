// Property tests (fast-check): nothing throws on any input, isAllowed agrees with check, and the
// compiled, indexed matcher agrees with the slow reference matcher on random patterns and paths.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt } from '../../src/parser/index.js';
import { referenceCheck, type ReferenceRule } from './reference.js';

const RUNS = { numRuns: 300 };

// Octets chosen to hit the interesting cases: separators, wildcards, anchors, escapes, non-ASCII.
const pieces = ['/', 'a', 'b', 'A', '*', '$', '%2A', '%24', '%61', '%2F', '%2f', '~', '%7E', 'ä', '%C3%A4', '?', '=', '.', '-', '%'];
const patternArb = fc.array(fc.constantFrom(...pieces), { minLength: 0, maxLength: 7 }).map((p) => '/' + p.join(''));
// Paths with `.`/`..` segments are left out: the matcher resolves them as URL does, the reference does not.
const pathArb = fc
  .array(fc.constantFrom(...pieces.filter((p) => p !== '$' && p !== '*')), { maxLength: 10 })
  .map((p) => '/' + p.join(''))
  .filter((p) => !/\/\.\.?(?:[/?]|$)/.test(p.split('?')[0]! + (p.includes('?') ? '?' : '')));
const ruleArb = fc.record({ allow: fc.boolean(), pattern: patternArb });

describe('properties', () => {
  it('any bytes parse without throwing, and every reader works', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.integer({ min: 1, max: 4000 }), (bytes, maxBytes) => {
        const r = parseRobotsTxt(bytes, { maxBytes });
        expect(r.isAllowed('/x', 'Bot')).toBeTypeOf('boolean');
        expect(Array.isArray(r.diagnostics)).toBe(true);
        expect(Array.isArray(r.groups)).toBe(true);
        r.crawlDelay('Bot');
        lintRobotsTxt(bytes, { maxBytes });
      }),
      RUNS,
    );
  });

  it('any robots.txt-like text parses without throwing', () => {
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.tuple(fc.constantFrom('User-agent', 'Disallow', 'Allow', 'Crawl-delay', 'Sitemap', 'useragent', 'disalow', 'x'), fc.constantFrom(':', ' ', ' : ', ''), fc.string({ unit: 'binary', maxLength: 30 })).map((t) => t.join('')),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), fc.string({ maxLength: 20 }), (lines, eol, ua) => {
        const r = parseRobotsTxt(lines.join(eol));
        r.isAllowed('/a/b?c', ua);
        r.crawlDelay(ua);
        expect(r.groups.length).toBeGreaterThanOrEqual(0);
      }),
      RUNS,
    );
  });

  it('isAllowed equals check().allowed', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 12 }), fc.array(pathArb, { minLength: 1, maxLength: 5 }), fc.constantFrom('Bot', 'Other/1.0', 'Agent4'), (rules, paths, ua) => {
        const r = parseRobotsTxt('User-agent: bot\n' + rules.map((x) => `${x.allow ? 'Allow' : 'Disallow'}: ${x.pattern}`).join('\n'));
        for (const p of paths) expect(r.isAllowed(p, ua)).toBe(r.check(p, ua).allowed);
      }),
      RUNS,
    );
  });

  it('the compiled matcher agrees with the reference matcher', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 1, maxLength: 12 }), fc.array(pathArb, { minLength: 1, maxLength: 6 }), (rules: ReferenceRule[], paths) => {
        const r = parseRobotsTxt('User-agent: *\n' + rules.map((x) => `${x.allow ? 'Allow' : 'Disallow'}: ${x.pattern}`).join('\n'));
        for (const p of paths) {
          if (p === '/robots.txt') continue;
          const expected = referenceCheck(rules, p);
          const got = r.check(p, 'Bot');
          expect({ p, allowed: got.allowed, matched: got.rule !== null }).toEqual({ p, allowed: expected.allowed, matched: expected.priority >= 0 });
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 1000) },
    );
  });

  it('the trigram buckets (entries with many wildcard rules) agree with the reference matcher', () => {
    const words = ['abc', 'abd', 'bcd', 'html', '.php', '%C3%A4x', 'aaa', 'a?b', 'x=1'];
    const wildcard = fc
      .tuple(fc.constantFrom('/', '/a', ''), fc.array(fc.constantFrom(...words, 'a', '*', '/'), { minLength: 1, maxLength: 4 }), fc.boolean())
      .map(([head, parts, anchored]) => `${head}*${parts.join('')}${anchored ? '$' : ''}`);
    const rule = fc.record({ allow: fc.boolean(), pattern: fc.oneof(wildcard, patternArb) });
    const path = fc.array(fc.constantFrom(...words, 'a', 'b', '/'), { maxLength: 8 }).map((p) => '/' + p.join(''));
    fc.assert(
      fc.property(fc.array(rule, { minLength: 20, maxLength: 60 }), fc.array(path, { minLength: 1, maxLength: 8 }), (rules: ReferenceRule[], paths) => {
        const r = parseRobotsTxt('User-agent: *\n' + rules.map((x) => `${x.allow ? 'Allow' : 'Disallow'}: ${x.pattern}`).join('\n'));
        for (const p of paths) {
          if (p === '/robots.txt' || /\/\.\.?(?:[/?]|$)/.test(p)) continue;
          const expected = referenceCheck(rules, p);
          const got = r.check(p, 'Bot');
          expect({ p, allowed: got.allowed, matched: got.rule !== null }).toEqual({ p, allowed: expected.allowed, matched: expected.priority >= 0 });
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });

  it('group selection and merging agree with a direct reading of RFC 9309 §2.2.1', () => {
    // A file is a list of blocks: user-agent lines, then rules, then other lines that never end a group.
    const names = ['a', 'A', 'b', '*', 'a/1.0', 'b images', '4x', 'Agent4', 'Agent'];
    const block = fc.record({
      agents: fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
      rules: fc.array(ruleArb, { maxLength: 4 }),
      other: fc.array(fc.constantFrom('Sitemap: https://e.com/s.xml', 'Crawl-delay: 1', 'Foo: bar', ''), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), fc.constantFrom('a', 'A/2.0', 'b', 'c', 'Agent4', 'agent', '4X/1'), pathArb, (blocks, ua, path) => {
        const lines: string[] = [];
        for (const b of blocks) {
          lines.push(...b.agents.map((n) => `User-agent: ${n}`), ...b.other);
          lines.push(...b.rules.map((x) => `${x.allow ? 'Allow' : 'Disallow'}: ${x.pattern}`));
        }
        // Reference: a group runs from its first user-agent line to the next user-agent line that follows
        // a rule; adjacent blocks without rules share one group.
        const groups: { names: string[]; rules: ReferenceRule[] }[] = [];
        let open: { names: string[]; rules: ReferenceRule[] } | null = null;
        for (const b of blocks) {
          if (!open || open.rules.length > 0) groups.push((open = { names: [], rules: [] }));
          // Issue 11: a token is letters, digits, `_` and `-` on both sides, compared whole.
          open.names.push(...b.agents.map((n) => (n === '*' ? '*' : /^[A-Za-z0-9_-]*/.exec(n)![0].toLowerCase())));
          open.rules.push(...b.rules);
        }
        const token = /^[A-Za-z0-9_-]+$/.test(ua.split('/')[0]!) ? ua.split('/')[0]!.toLowerCase() : null;
        let applicable = token ? groups.filter((g) => g.names.includes(token)) : [];
        if (applicable.length === 0) applicable = groups.filter((g) => g.names.includes('*'));
        const r = parseRobotsTxt(lines.join('\n'));
        if (path === '/robots.txt') return;
        const got = r.check(path, ua);
        expect(got.group === null).toBe(applicable.length === 0);
        expect(got.allowed).toBe(referenceCheck(applicable.flatMap((g) => g.rules), path).allowed);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });
});
