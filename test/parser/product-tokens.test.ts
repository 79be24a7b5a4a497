// Issue 11: who the crawler is. One token rule for both sides (letters, digits, `_`, `-`, compared
// whole), the token read from browser-style headers (`compatible; GPTBot/1.1`), and real headers
// against a file that names them.
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, namesProduct, parseRobotsTxt, productsOf, productToken, readProductToken } from '../../src/parser/index.js';
import { HEADERS, NAMING_FILE } from '../helpers/crawler-headers.js';

describe('one token rule for both sides', () => {
  it('a user-agent line names the leading run of letters, digits, _ and -', () => {
    const r = parseRobotsTxt('User-agent: ExampleBot/1.0\nUser-agent: ExampleBot Images\nUser-agent: AI2Bot\nDisallow: /\n');
    expect(r.groups[0]!.userAgents.map((u) => u.token)).toEqual(['examplebot', 'examplebot', 'ai2bot']);
  });

  it('compares the crawler\'s token whole: AI2Bot is not AI, Agent1 and Agent2 are two groups', () => {
    const r = parseRobotsTxt('User-agent: AI\nDisallow: /ai/\n\nUser-agent: Agent1\nDisallow: /one/\n\nUser-agent: Agent2\nDisallow: /two/\n\nUser-agent: *\nDisallow: /star/\n');
    expect(r.check('/ai/x', 'AI2Bot')).toMatchObject({ allowed: true, group: { userAgents: ['*'] } });
    expect(r.isAllowed('/star/x', 'AI2Bot')).toBe(false);
    expect(r.check('/one/x', 'agent1')).toMatchObject({ allowed: false, group: { userAgents: ['Agent1'], lines: [4] } });
    expect(r.isAllowed('/two/x', 'Agent1')).toBe(true);
    expect(r.isAllowed('/two/x', 'AGENT2/3.0')).toBe(false);
    expect(r.isAllowed('/one/x', 'Agent2')).toBe(true);
  });

  it('AI2Bot, MJ12bot and img2dataset as the crawler and in the file', () => {
    const r = parseRobotsTxt(NAMING_FILE);
    for (const [name, path] of [['AI2Bot', '/ai2-only/'], ['mj12bot', '/mj12-only/'], ['IMG2DATASET', '/img2-only/']] as const) {
      expect(r.isAllowed(`${path}x`, name), name).toBe(false);
      expect(r.isAllowed('/private/x', name), name).toBe(true); // its own group, not *
      expect(r.isAllowed(`${path}x`, 'OtherBot'), name).toBe(true);
    }
  });

  it('a token with a digit is accepted and reported as info, in the parse and in lint', () => {
    const body = 'User-agent: AI2Bot\nUser-agent: MJ12bot/1.4\nDisallow: /\n\nUser-agent: *\nUser-agent: FooBot\nDisallow: /x\n';
    const codes = (ds: readonly { code: string; severity: string; line: number; message: string }[]) =>
      ds.filter((d) => d.code === 'digit-in-product-token').map((d) => `${d.line} ${d.severity} ${d.message}`);
    expect(codes(parseRobotsTxt(body).diagnostics)).toEqual([
      '1 info The product token "AI2Bot" holds a digit, which RFC 9309 §2.2.1 does not allow; it is accepted and compared whole, as crawlers are named so.',
      expect.stringMatching(/^2 info The product token "MJ12bot" holds a digit/),
    ]);
    expect(codes(lintRobotsTxt(body))).toHaveLength(2);
    expect(parseRobotsTxt('User-agent: FooBot\nDisallow: /\n').diagnostics).toEqual([]);
  });

  it('keeps * the global group exactly as before', () => {
    const r = parseRobotsTxt('User-agent: * # all\nDisallow: /a\n\nUser-agent: *bot\nDisallow: /b\n');
    expect(r.isAllowed('/a', 'AnyBot')).toBe(false);
    expect(r.isAllowed('/b', 'AnyBot')).toBe(true);
    expect(r.groups[1]!.userAgents[0]!.token).toBe('');
    expect(r.names('*')).toBe(true);
  });

  it('names(token) tells whether some group names a token, whole and case-insensitively', () => {
    const r = parseRobotsTxt('User-agent: MyBot\nDisallow: /\n');
    expect(r.names('mybot')).toBe(true);
    expect(r.names('MyBot-News')).toBe(false);
    expect(r.names('My')).toBe(false);
    expect(r.names('*')).toBe(false);
    expect(r.names('')).toBe(false);
  });
});

describe('the token read from a User-Agent string', () => {
  it('is the leading product, unless that is Mozilla: then the product after compatible;', () => {
    expect(productToken('MyBot/2.1 (+https://x.example/bot)')).toBe('MyBot');
    expect(productToken('AI2Bot/1.0 (compatible; Other/1)')).toBe('AI2Bot');
    expect(productToken(HEADERS.rfcExample)).toBe('ExampleBot');
    expect(productToken(HEADERS.gptbot)).toBe('GPTBot');
    expect(productToken(HEADERS.googlebotDesktop)).toBe('Googlebot');
    expect(productToken(HEADERS.googlebotDesktopClassic)).toBe('Googlebot');
    // The first comment (Linux; Android …) has no compatible;, the one after Mobile Safari does.
    expect(productToken(HEADERS.googlebotSmartphone)).toBe('Googlebot');
    expect(productToken(HEADERS.bingbot)).toBe('bingbot');
    expect(productToken(HEADERS.claudebot)).toBe('ClaudeBot');
    expect(productToken(HEADERS.mj12bot)).toBe('MJ12bot');
    expect(productToken(HEADERS.img2dataset)).toBe('img2dataset');
    expect(productToken('mozilla/5.0 (COMPATIBLE ;  Lower-Bot_2)')).toBe('Lower-Bot_2');
  });

  it("reads OpenAI's agents as OpenAI publishes their headers, compatible; outside the parentheses", () => {
    expect(productToken(HEADERS.gptbotPublished)).toBe('GPTBot');
    expect(productToken(HEADERS.chatgptUser)).toBe('ChatGPT-User');
    expect(productToken(HEADERS.oaiSearchbot)).toBe('OAI-SearchBot');
    expect(readProductToken(HEADERS.gptbotPublished)).toEqual({ token: 'GPTBot', from: 'compatible', text: 'compatible; GPTBot/1.1' });
    expect(productToken('Mozilla/5.0 compatible; NotInAComment/1')).toBe('NotInAComment');
    // `compatible` must be a word of its own, followed by `;`.
    expect(productToken('Mozilla/5.0 incompatible; Other/1')).toBe('Mozilla');
    expect(productToken('Mozilla/5.0 (Windows NT 10.0) compatible')).toBe('Mozilla');
  });

  it('takes the first item after compatible; that is one product and no browser or platform', () => {
    // Mail.RU_Bot's published form: the platform comes first.
    expect(productToken('Mozilla/5.0 (compatible; Linux x86_64; MyBot/2.0; +https://my.example/bot)')).toBe('MyBot');
    expect(readProductToken('Mozilla/5.0 (compatible; Linux x86_64; MyBot/2.0; +https://my.example/bot)')).toEqual({
      token: 'MyBot',
      from: 'compatible',
      text: 'compatible; Linux x86_64; MyBot/2.0',
    });
    expect(productToken('Mozilla/5.0 (compatible; U; Linux; MyBot)')).toBe('MyBot');
    expect(productToken('Mozilla/5.0 compatible; compatible; MyBot/1.0')).toBe('MyBot');
    // A comment of browser and platform items names no crawler; a later compatible; may.
    expect(productToken('Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1) compatible; MyBot/1.0')).toBe('MyBot');
    // `compatible;` inside a URL is no marker.
    expect(productToken('Mozilla/5.0 (+https://x.example/?via=compatible;Evil/1) compatible; MyBot/1.0')).toBe('MyBot');
    expect(productToken('Mozilla/5.0 (+https://x.example/?via=compatible;Evil/1)')).toBe('Mozilla');
    // A bare Internet Explorer string is a browser: it names no crawler, and RobotsGate refuses it.
    expect(productToken('Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)')).toBe('Mozilla');
    expect(productToken('Mozilla/5.0 (compatible; +https://only.example/url)')).toBe('Mozilla');
    // Konqueror names itself after `compatible;` as crawlers do: a browser all the same.
    expect(productToken('Mozilla/5.0 (compatible; Konqueror/3.5; Linux)')).toBe('Mozilla');
    expect(productToken('Mozilla/5.0 (compatible; Konqueror/4.5; Linux) KHTML/4.5.4 (like Gecko) compatible; MyBot/1.0')).toBe('MyBot');
  });

  it('a Mozilla string with no compatible; product stays Mozilla', () => {
    expect(productToken(HEADERS.chrome)).toBe('Mozilla');
    expect(productToken(HEADERS.ai2bot)).toBe('Mozilla'); // `(compatible)` has no `;`
    expect(productToken('Mozilla/5.0 (compatible; )')).toBe('Mozilla');
    expect(productToken('Mozilla denybot 99.9')).toBe('Mozilla');
  });

  it('says where the token came from', () => {
    expect(readProductToken(HEADERS.gptbot)).toEqual({ token: 'GPTBot', from: 'compatible', text: 'compatible; GPTBot/1.1' });
    expect(readProductToken(HEADERS.img2dataset)).toEqual({ token: 'img2dataset', from: 'compatible', text: 'compatible; img2dataset' });
    expect(readProductToken('MyBot/2.1 (+https://x.example/bot)')).toEqual({ token: 'MyBot', from: 'leading', text: 'MyBot/2.1' });
    expect(readProductToken(HEADERS.chrome)).toEqual({ token: 'Mozilla', from: 'mozilla', text: 'Mozilla/5.0' });
  });

  it('the parser given a bare browser string matches it as mozilla: only * and Mozilla groups apply', () => {
    const r = parseRobotsTxt('User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /star/\n');
    expect(r.isAllowed('/x', HEADERS.chrome)).toBe(true);
    expect(r.check('/star/x', HEADERS.chrome)).toMatchObject({ allowed: false, group: { userAgents: ['*'] } });
    const m = parseRobotsTxt('User-agent: Mozilla\nDisallow: /m/\n');
    expect(m.isAllowed('/m/x', HEADERS.chrome)).toBe(false);
  });

  it('lists the products of a string: not comment words, not parts of URLs', () => {
    expect(productsOf(HEADERS.gptbot)).toEqual(['Mozilla', 'AppleWebKit', 'Gecko', 'compatible', 'GPTBot']);
    expect(productsOf(HEADERS.ai2bot)).toEqual(['Mozilla', 'compatible', 'AI2Bot']);
    expect(productsOf('MyBot')).toEqual(['MyBot']);
    expect(namesProduct(HEADERS.ai2bot, 'ai2bot')).toBe(true);
    expect(namesProduct(HEADERS.gptbot, 'gptbot')).toBe(true);
    expect(namesProduct(HEADERS.gptbot, 'openai')).toBe(false);
    expect(namesProduct(HEADERS.gptbot, 'like')).toBe(false);
    expect(namesProduct(HEADERS.mj12bot, 'v1')).toBe(false);
    expect(namesProduct('  MyBot ', 'mybot')).toBe(true);
  });
});

describe('real headers against a file that names them', () => {
  const r = parseRobotsTxt(NAMING_FILE);
  const cases: [keyof typeof HEADERS, string, string][] = [
    ['rfcExample', '/example-only/x', 'ExampleBot'],
    ['googlebotDesktop', '/google-only/x', 'Googlebot'],
    ['googlebotDesktopClassic', '/google-only/x', 'Googlebot'],
    ['googlebotSmartphone', '/google-only/x', 'Googlebot'],
    ['bingbot', '/bing-only/x', 'bingbot'],
    ['gptbot', '/anything', 'GPTBot'],
    ['claudebot', '/claude-only/x', 'ClaudeBot'],
    ['gptbotPublished', '/anything', 'GPTBot'],
    ['chatgptUser', '/chatgpt-only/x', 'ChatGPT-User'],
    ['oaiSearchbot', '/oai-search-only/x', 'OAI-SearchBot'],
    ['mj12bot', '/mj12-only/x', 'MJ12bot'],
    ['img2dataset', '/img2-only/x', 'img2dataset'],
  ];
  it.each(cases)('%s is disallowed by its own group', (name, path, group) => {
    const m = r.check(path, HEADERS[name]);
    expect(m.allowed).toBe(false);
    expect(m.group?.userAgents).toEqual([group]);
    // Its own group, not *: /private/ is only the others'.
    if (name !== 'gptbot' && name !== 'gptbotPublished') expect(r.isAllowed('/private/x', HEADERS[name])).toBe(true);
  });
});
