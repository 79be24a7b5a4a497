// RFC 9309 §2.1 and §2.2.1: groups, merging, and product tokens.
import { describe, expect, it } from 'vitest';
import { isValidProductToken, parseRobotsTxt, productToken } from '../../src/parser/index.js';

describe('groups', () => {
  it('one or more user-agent lines followed by rules form a group', () => {
    const r = parseRobotsTxt('User-agent: a\nUser-agent: b\nDisallow: /x\n\nUser-agent: c\nDisallow: /y\n');
    expect(r.isAllowed('/x', 'a')).toBe(false);
    expect(r.isAllowed('/x', 'b')).toBe(false);
    expect(r.isAllowed('/x', 'c')).toBe(true);
    expect(r.isAllowed('/y', 'c')).toBe(false);
    expect(r.groups.map((g) => g.userAgents.map((u) => u.value))).toEqual([['a', 'b'], ['c']]);
  });

  it('a user-agent line after a rule starts a new group, even without a blank line', () => {
    const r = parseRobotsTxt('User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n');
    expect(r.isAllowed('/x', 'b')).toBe(true);
    expect(r.isAllowed('/y', 'a')).toBe(true);
  });

  it('Sitemap, Crawl-delay, unknown keys and blank lines neither start nor end a group', () => {
    const r = parseRobotsTxt('User-agent: a\nSitemap: https://e.com/s.xml\n\nFoo: bar\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n');
    expect(r.groups).toHaveLength(1);
    expect(r.isAllowed('/x', 'a')).toBe(false);
    expect(r.isAllowed('/x', 'b')).toBe(false);
  });

  it('merges every group that names the crawler', () => {
    const r = parseRobotsTxt('User-agent: a\nDisallow: /x\n\nUser-agent: *\nDisallow: /z\n\nUser-agent: A\nDisallow: /y\n');
    const result = r.check('/y', 'a');
    expect(result.allowed).toBe(false);
    expect(r.isAllowed('/x', 'a')).toBe(false);
    expect(r.isAllowed('/z', 'a')).toBe(true);
    expect(result.group).toEqual({ userAgents: ['a', 'A'], lines: [1, 7] });
  });

  it('uses the merged * groups only when no group names the crawler', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /x\n\nUser-agent: a\nDisallow: /y\n\nUser-agent: *\nDisallow: /z\n');
    expect(r.isAllowed('/x', 'other')).toBe(false);
    expect(r.isAllowed('/z', 'other')).toBe(false);
    expect(r.check('/x', 'other').group).toEqual({ userAgents: ['*', '*'], lines: [1, 7] });
    expect(r.isAllowed('/x', 'a')).toBe(true);
  });

  it('allows everything when no group applies', () => {
    const r = parseRobotsTxt('User-agent: a\nDisallow: /\n');
    expect(r.check('/x', 'b')).toEqual({ allowed: true, rule: null, group: null });
  });

  it('ignores and reports rules before the first user-agent line', () => {
    const r = parseRobotsTxt('Disallow: /x\nCrawl-delay: 5\nUser-agent: *\nDisallow: /y\n');
    expect(r.isAllowed('/x', 'Bot')).toBe(true);
    expect(r.isAllowed('/y', 'Bot')).toBe(false);
    expect(r.crawlDelay('Bot')).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['rule-outside-group', 1],
      ['rule-outside-group', 2],
    ]);
  });

  it('an empty Disallow is no rule, but its group still exists and shadows *', () => {
    const r = parseRobotsTxt('User-agent: a\nDisallow:\n\nUser-agent: *\nDisallow: /\n');
    expect(r.check('/x', 'a')).toEqual({ allowed: true, rule: null, group: { userAgents: ['a'], lines: [1] } });
    expect(r.isAllowed('/x', 'b')).toBe(false);
    expect(r.groups[0]!.rules).toEqual([]);
  });
});

describe('product tokens', () => {
  it('takes the start of a User-Agent string up to the first /, white space or end', () => {
    expect(productToken('ExampleBot/2.1 (+https://bot.example/info)')).toBe('ExampleBot');
    expect(productToken('ExampleBot')).toBe('ExampleBot');
    expect(productToken('Example-Bot_2 more')).toBe('Example-Bot_2');
    expect(productToken('  Padded/1')).toBe('Padded');
  });

  it('accepts letters, digits, _ and - as a token', () => {
    expect(isValidProductToken('Example-Bot_x')).toBe(true);
    expect(isValidProductToken('Agent4')).toBe(true);
    expect(isValidProductToken('Jävla-Bot')).toBe(false);
    expect(isValidProductToken('')).toBe(false);
    expect(isValidProductToken('*')).toBe(false);
  });

  it('compares case-insensitively', () => {
    const r = parseRobotsTxt('User-agent: EXAMPLEbot\nDisallow: /\n');
    expect(r.isAllowed('/x', 'examplebot/1.0')).toBe(false);
  });

  it('matches whole tokens, never substrings', () => {
    const r = parseRobotsTxt('User-agent: bot\nDisallow: /\n\nUser-agent: ExampleBotX\nDisallow: /\n');
    expect(r.isAllowed('/x', 'ExampleBot')).toBe(true);
    expect(r.isAllowed('/x', 'ExampleBot/1.0')).toBe(true);
  });

  it('a non-Mozilla User-Agent is its first token, not a word inside it', () => {
    const r = parseRobotsTxt('User-agent: ExampleBot\nDisallow: /\n');
    expect(r.isAllowed('/x', 'OtherBot/5.0 (compatible; ExampleBot/2.1)')).toBe(true);
    expect(r.isAllowed('/x', 'ExampleBot/2.1 (+https://bot.example/info)')).toBe(false);
  });

  it('a token with digits (Agent4) is compared whole: its own group, never Agent\'s', () => {
    const r = parseRobotsTxt('User-agent: Agent4\nDisallow: /a\n\nUser-agent: Agent\nDisallow: /b\n\nUser-agent: *\nDisallow: /c\n');
    expect(r.isAllowed('/a', 'Agent4')).toBe(false);
    expect(r.isAllowed('/b', 'Agent4')).toBe(true);
    expect(r.isAllowed('/c', 'Agent4')).toBe(true);
    expect(r.isAllowed('/a', 'Agent')).toBe(true);
    expect(r.isAllowed('/b', 'Agent')).toBe(false);
  });

  it('a user-agent line names the leading run of letters, digits, _ and - of its value', () => {
    const r = parseRobotsTxt('User-agent: ExampleBot/1.0\nDisallow: /a\n\nUser-agent: OtherBot Images\nDisallow: /b\n');
    expect(r.isAllowed('/a', 'ExampleBot')).toBe(false);
    expect(r.isAllowed('/b', 'OtherBot')).toBe(false);
    expect(r.isAllowed('/b', 'Images')).toBe(true);
    expect(r.groups.map((g) => g.userAgents[0]!.token)).toEqual(['examplebot', 'otherbot']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['invalid-product-token', 'invalid-product-token']);
  });

  it('a user-agent value starting with another character names nothing', () => {
    const r = parseRobotsTxt('User-agent: .bot\nDisallow: /\n');
    expect(r.isAllowed('/x', 'bot')).toBe(true);
    expect(r.groups[0]!.userAgents[0]!.token).toBe('');
    expect(r.diagnostics[0]).toMatchObject({ code: 'invalid-product-token', severity: 'warning', line: 1, column: 13 });
  });
});
