// The shared conformance cases (test/fixtures/conformance-cases.json, see conformance-README.md).
// Every `strict` case passes (with the RFC's answer where the source's own convention conflicts with
// RFC 9309). Each group of `lenient` cases was decided deliberately: DIFFER lists the cases where we
// give the other answer, with the reason; every other lenient case must keep passing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';

interface Case {
  id: string;
  source: string;
  group: string;
  robots: string;
  userAgent: string;
  url: string;
  allowed: boolean;
  rfc: 'strict' | 'lenient';
  rfcConflict?: boolean;
  crawlDelaySeconds?: number | null;
  sitemaps?: string[];
}

const cases: Case[] = JSON.parse(readFileSync(new URL('../fixtures/conformance-cases.json', import.meta.url), 'utf8'));

// `*` in a case means "a crawler no group names" (README): a valid token that appears in no file.
const crawler = (c: Case): string => (c.userAgent === '*' ? 'UnnamedCrawler' : c.userAgent);

/** Lenient cases where robots-gate deliberately gives the other answer, and why. */
const DIFFER: Record<string, { ids: string[]; reason: string }> = {
  'several-names-on-one-line': {
    reason:
      'A user-agent line names one product token: the leading run of letters, digits, "_" and "-" of its value, as Google\'s ' +
      'reference parser reads it ("User-agent: ExampleBot Images" names ExampleBot). Lines listing several names ' +
      '("Agent2 Agent3", "crawler1 crawler2", "One, Two, Three", "harry potter") name only the first.',
    ids: [
      ...[35, 38, 47, 56].map((n) => `crawler-commons:testNutchCases2:${n}`),
      'crawler-commons:testMultiAgentNames:1',
      'crawler-commons:testSpacesInMultipleUserAgentNames:2',
      'crawler-commons:testSpacesInMultipleUserAgentNames:3',
      'protego:test_generosity:3',
    ],
  },
  'words-of-a-user-agent-string': {
    reason:
      'The crawler\'s product token is the leading product of its User-Agent string (RFC 9309 §2.2.1; issues 2 and 11), ' +
      'or for a Mozilla string the product after "compatible;" in a comment: "Mozilla denybot 99.9" has none, so it is ' +
      'Mozilla, never denybot. crawler-commons matches any word.',
    ids: [5, 6, 7].map((n) => `crawler-commons:testHeritrixCases:${n}`),
  },
  'non-ascii-or-wildcard-names': {
    reason:
      'UnicödeBöt, Jävla-Foobot, Львів-bot and foo*bot are not product tokens (ASCII letters, "_", "-" only, RFC 9309 ' +
      '§2.2.1); such crawlers get the "*" group, and such lines name only their leading ASCII run.',
    ids: [
      ...[4, 10, 12, 15].map((n) => `protego:test_unicode_url_and_useragent:${n}`),
      'protego:test_generosity:5',
      'protego:test_generosity:6',
    ],
  },
  'misspelling-not-in-googles-list': {
    reason:
      'We accept exactly the misspellings Google\'s reference parser accepts (dissallow, dissalow, disalow, diasllow, ' +
      'disallaw, useragent, user agent), each with a diagnostic; "Desallow" and "useg-agent" are not among them. ' +
      '(testDirectiveTypos:1 also has a digit in its crawler, bot1: since the digit rule only the misspelling differs.)',
    ids: ['crawler-commons:testDirectiveTypos:1', 'crawler-commons:testDirectiveTypos:4'],
  },
  'html-markup': {
    reason:
      'An HTML page served as robots.txt is reported (`html-body`, the gate flags such decisions); we do not strip ' +
      'markup to guess rules out of it, so "User-agent: *<BR>" names no crawler.',
    ids: ['crawler-commons:testHtmlMarkupInRobotsTxt:2'],
  },
  'trailing-wildcard-length': {
    reason:
      'RFC 9309 §2.2.2 counts the octets of the pattern, "*" included, as Google\'s robots.cc does: "Disallow: /*" (2) ' +
      'beats "Allow: /" (1). The strict case testPrecedenceOfRules:3 requires this on /bar/foo, so "/" cannot differ.',
    ids: ['crawler-commons:testPrecedenceOfRules:1'],
  },
  'pattern-without-leading-slash': {
    reason:
      'A pattern must start with "/" (RFC 9309 §2.2.2 `path-pattern = "/" *UTF8-char-noctl`); "disallow: http://host/" ' +
      'is kept as written and matches no path, with a `pattern-not-path` diagnostic, as in Google\'s parser.',
    ids: ['protego:test_with_absolute_urls:2'],
  },
};

/**
 * Lenient cases whose outcome changed with issue 11's digit rule (tokens are letters, digits, `_` and
 * `-`, compared whole on both sides). Until then robots-gate deliberately gave the other answer: a
 * crawler named Agent1, bot1, Rule1TestBot or 2bot was no valid token and got only the `*` groups, while
 * the file's `User-agent: Agent1` named `agent`. Now each gets the group naming it, as crawler-commons,
 * Protego, Nutch and robots-parser answer (and as test/fixtures/conformance-README.md lists).
 */
const CHANGED_BY_DIGIT_RULE: string[] = [
      ...[1, 2, 3].map((n) => `crawler-commons:testFormatErrors:${n}`),
      ...[34, 36, 37, 39, 46, 48, 55, 57].map((n) => `crawler-commons:testNutchCases2:${n}`),
      ...[1, 2, 3, 5, 6, 19].map((n) => `crawler-commons:testNutchCases:${n}`),
      'crawler-commons:testUnsupportedFields:1',
      ...[2, 3, 5].map((n) => `crawler-commons:testDirectiveTypos:${n}`),
      ...[15, 16, 17, 19, 20, 21, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 41, 42, 43].map(
        (n) => `protego:test_allowed_wildcards:${n}`,
      ),
      ...[4, 12, 13].map((n) => `protego:test_1996rfc_examples:${n}`),
    ];

const differ = new Map<string, string>();
for (const [name, { ids }] of Object.entries(DIFFER)) for (const id of ids) differ.set(id, name);

function outcome(c: Case) {
  const robots = parseRobotsTxt(c.robots);
  const ua = crawler(c);
  return { robots, ua, allowed: robots.isAllowed(c.url, ua) };
}

describe('conformance: strict cases', () => {
  const strict = cases.filter((c) => c.rfc === 'strict');
  it('has the expected number of strict cases', () => {
    expect(strict.length).toBeGreaterThan(500);
  });
  it.each(strict.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const { robots, ua, allowed } = outcome(c);
    // rfcConflict: the source's convention contradicts RFC 9309; the RFC's answer is the opposite.
    expect(allowed).toBe(c.rfcConflict ? !c.allowed : c.allowed);
    // testHeritrixCases:10 asserts a crawl delay that only crawler-commons' word matching finds
    // ("Mozilla delaybot 99.9" is product token Mozilla, which the delaybot group does not name).
    if ('crawlDelaySeconds' in c && c.id !== 'crawler-commons:testHeritrixCases:10') {
      expect(robots.crawlDelay(ua) ?? null).toBe(c.crawlDelaySeconds);
    }
    if (c.sitemaps) expect(robots.sitemaps).toEqual(c.sitemaps);
  });
  it('reads "Mozilla delaybot 99.9" as product token Mozilla: no crawl delay from the delaybot group', () => {
    const c = cases.find((x) => x.id === 'crawler-commons:testHeritrixCases:10')!;
    expect(parseRobotsTxt(c.robots).crawlDelay(c.userAgent)).toBeUndefined();
    expect(parseRobotsTxt(c.robots).crawlDelay('delaybot')).toBe(20);
  });
});

describe('conformance: lenient cases, decided group by group', () => {
  const lenient = cases.filter((c) => c.rfc === 'lenient');
  it('every id in DIFFER is a lenient case', () => {
    for (const id of differ.keys()) expect(lenient.some((c) => c.id === id), id).toBe(true);
  });
  it('the cases the digit rule changed are the lenient ua-digits cases, and now give the source\'s answer', () => {
    const byId = new Map(cases.map((c) => [c.id, c]));
    expect(CHANGED_BY_DIGIT_RULE).toHaveLength(46);
    for (const id of CHANGED_BY_DIGIT_RULE) {
      const c = byId.get(id)! as Case & { tags: string[] };
      expect(c.rfc, id).toBe('lenient');
      expect(c.tags, id).toContain('ua-digits');
      expect(differ.has(id), id).toBe(false);
      expect(outcome(c).allowed, id).toBe(c.allowed);
    }
  });
  it.each(lenient.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const { robots, ua, allowed } = outcome(c);
    const expected = c.rfcConflict ? !c.allowed : c.allowed;
    const decision = differ.get(c.id);
    if (decision) {
      const sameAnswer =
        allowed === expected &&
        (!('crawlDelaySeconds' in c) || (robots.crawlDelay(ua) ?? null) === c.crawlDelaySeconds);
      expect(sameAnswer, `deliberately differs: ${decision}`).toBe(false);
    } else {
      expect(allowed).toBe(expected);
      if ('crawlDelaySeconds' in c) expect(robots.crawlDelay(ua) ?? null).toBe(c.crawlDelaySeconds);
      if (c.sitemaps) expect(robots.sitemaps).toEqual(c.sitemaps);
    }
  });
});
