// A warm check of a URL string in canonical form never builds a URL object: the gate splits it in
// place and matches its path where it lies (splitCanonicalUrl, Policy.checkNormal). Here the string
// is decided against the same URL handed in as a URL object (the slow path: WHATWG URL, then the
// matcher's own normalising), and against the slow reference matcher, over hostile paths.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsGate, type Decision } from '../../src/index.js';
import { splitCanonicalUrl } from '../../src/fetcher/url.js';
import { referenceCheck, type ReferenceRule } from '../parser/reference.js';

const UA = 'FastBot/1.0';
const rule = (allow: boolean, pattern: string): ReferenceRule => ({ allow, pattern });
// Escapes the normal form decodes (%7E, %2A), keeps (%2F) or upper-cases (%2f), wildcards, anchors,
// a query, non-ASCII, `'` (sent raw in a path, as %27 in a query), /robots.txt with a query.
const MANY: ReferenceRule[] = [
  rule(false, '/a'),
  rule(true, '/a/b'),
  rule(false, '/a%2Fb'),
  rule(true, '/a%2fb/c'),
  rule(false, '/~user'),
  rule(true, '/%7Euser/pub'),
  rule(false, '/*.php$'),
  rule(true, '/x*y'),
  rule(false, '/p?q='),
  rule(false, '/caf%C3%A9'),
  rule(true, '/café/ok'),
  rule(false, "/it's"),
  rule(false, "/*?*'"),
  rule(false, '/%2A'),
  rule(true, '/*$'),
  rule(false, '/robots.txt?x'),
  rule(false, '/%'),
  rule(true, '/%25'),
];
const FEW: ReferenceRule[] = [rule(false, '/a%7e'), rule(true, '/a~b'), rule(false, '/*%2F'), rule(false, '/q?')];
const robots = (rules: ReferenceRule[]) => 'User-agent: *\n' + rules.map((r) => `${r.allow ? 'Allow' : 'Disallow'}: ${r.pattern}`).join('\n') + '\n';

let vh: VirtualHosts;
let gate: RobotsGate;

beforeAll(async () => {
  vh = await startVirtualHosts({ 'many.test': site(robots(MANY)), 'few.test': site(robots(FEW)) });
  gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0, jitter: 0, resolve: vh.resolve });
});

afterAll(async () => {
  await gate?.close();
  await vh?.close();
});

const piece = fc.constantFrom(
  ...'aAbxyz~-._!$&()*+,;=:@/?\'%"<>\\^`{|} #\t\néü'.split(''),
  '%7E', '%7e', '%2F', '%2f', '%2A', '%2a', '%24', '%25', '%41', '%C3%A9', '%c3%a9', '%2e', '%2E', '%zz',
  '/a', '/b', '/c', '/~user', '/pub', '.php', '/p?q=', 'caf', "it's", '/./', '/../', '/robots.txt', '?x',
);
const pathArb = fc.array(piece, { maxLength: 8 }).map((p) => '/' + p.join(''));

/** A decision as a comparable record (the stamp is the same object either way). */
const seen = (d: Decision) => ({ url: d.url, origin: d.origin, allowed: d.allowed, reason: d.reason, rule: d.rule, group: d.group, policy: d.policy });

describe('warm gate.check of a URL string (no URL object) against the slow paths', () => {
  for (const [host, rules] of [['many.test', MANY], ['few.test', FEW]] as const) {
    it(`decides as for the URL object and as the reference matcher (${host})`, async () => {
      const origin = vh.origin(host);
      await gate.check(`${origin}/`);
      let fast = 0;
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(pathArb, async (path) => {
          const s = origin + path;
          let u: URL;
          try {
            u = new URL(s);
          } catch {
            await expect(gate.check(s)).rejects.toThrow(TypeError);
            return;
          }
          runs++;
          if (splitCanonicalUrl(s)) fast++;
          const byString = await gate.check(s);
          const byObject = await gate.check(u);
          expect(seen(byString)).toEqual(seen(byObject));
          const target = u.pathname + (u.search || (u.href.replace(/#.*$/s, '').endsWith('?') ? '?' : ''));
          if (target === '/robots.txt') expect(byString.reason).toBe('robots-txt');
          else {
            const expected = referenceCheck([...rules], target);
            expect({ target, allowed: byString.allowed, matched: byString.rule !== null }).toEqual({ target, allowed: expected.allowed, matched: expected.priority >= 0 });
          }
        }),
        { numRuns: Number(process.env.FC_RUNS ?? 3000) },
      );
      // Not vacuous: a good share of the strings took the fast path (the index is built past the
      // first checks, so both the scan and the index answered them).
      expect(fast).toBeGreaterThan(runs / 4);
    });
  }
});
