// Issue 11 at the gate: the token read from real crawler headers, the productToken option (a string
// or an ordered fallback list), and GPTBot's real header disallowed through check, fetch and the
// interceptor, with nothing sent to the disallowed URL. Real loopback servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { HEADERS, NAMING_FILE } from '../helpers/crawler-headers.js';
import { RobotsGate, RobotsBlockedError, InvalidUserAgentError, createResolvingAgent, crawlerIdentity } from '../../src/index.js';
import { likelyCrawlerProducts, productToken } from '../../src/parser/product-token.js';

/** Applebot's header as Apple documents it: Safari's, with the crawler in a trailing comment. */
const APPLEBOT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 14_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.0.3 Mobile/15E148 Safari/604.1 (Applebot/0.1; +http://www.apple.com/go/applebot)';

let vh: VirtualHosts;
const page = (body: string) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
  if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${req.url}`);
};

beforeAll(async () => {
  vh = await startVirtualHosts({
    'names.test': page(NAMING_FILE),
    'news.test': site('User-agent: MyBot-News\nDisallow: /news-only/\n\nUser-agent: MyBot\nDisallow: /bot-only/\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /star/\n'),
    'bot.test': site('User-agent: MyBot\nDisallow: /bot-only/\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /star/\n'),
    'star.test': site('User-agent: *\nDisallow: /star/\n'),
  });
});
afterAll(async () => {
  await vh?.close();
});

async function withGate<T>(options: Partial<ConstructorParameters<typeof RobotsGate>[0]> & { userAgent: string }, fn: (g: RobotsGate) => Promise<T>): Promise<T> {
  const g = new RobotsGate({ timeoutMs: 5000, resolve: vh.resolve, ...options });
  try {
    return await fn(g);
  } finally {
    await g.close();
  }
}

describe('the token read from the User-Agent', () => {
  it('real headers decide by the group that names them, and the header sent is the whole string', async () => {
    const cases: [keyof typeof HEADERS, string, string][] = [
      ['rfcExample', '/example-only/x', 'ExampleBot'],
      ['googlebotDesktop', '/google-only/x', 'Googlebot'],
      ['googlebotSmartphone', '/google-only/x', 'Googlebot'],
      ['bingbot', '/bing-only/x', 'bingbot'],
      ['claudebot', '/claude-only/x', 'ClaudeBot'],
      // OpenAI's published headers: `compatible;` outside the parentheses.
      ['chatgptUser', '/chatgpt-only/x', 'ChatGPT-User'],
      ['oaiSearchbot', '/oai-search-only/x', 'OAI-SearchBot'],
      ['mj12bot', '/mj12-only/x', 'MJ12bot'],
      ['img2dataset', '/img2-only/x', 'img2dataset'],
    ];
    for (const [name, path, token] of cases) {
      await withGate({ userAgent: HEADERS[name] }, async (g) => {
        expect(g.productToken, name).toBe(token);
        const d = await g.check(`${vh.origin('names.test')}${path}`);
        expect(d, name).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', productToken: token, group: { userAgents: [token] } });
        expect((await g.check(`${vh.origin('names.test')}/private/x`)).allowed, name).toBe(true);
      });
    }
    expect(vh.requests('names.test', '/robots.txt').map((r) => r.userAgent)).toEqual(cases.map(([n]) => HEADERS[n]));
  });

  it('a header whose platform comes before the crawler after compatible; decides by the crawler, not the platform', async () => {
    await withGate({ userAgent: 'Mozilla/5.0 (compatible; Linux x86_64; ClaudeBot/2.0; +https://my.example/bot)' }, async (g) => {
      expect(g.productToken).toBe('ClaudeBot');
      expect(await g.check(`${vh.origin('names.test')}/claude-only/x`)).toMatchObject({ allowed: false, group: { userAgents: ['ClaudeBot'] } });
    });
    expect(() => new RobotsGate({ userAgent: 'Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)' })).toThrow(/names no crawler/);
  });

  it('a bare browser User-Agent is refused: it names no crawler, pass productToken', () => {
    const err = (() => {
      try {
        new RobotsGate({ userAgent: HEADERS.chrome });
      } catch (e) {
        return e as InvalidUserAgentError;
      }
    })()!;
    expect(err).toBeInstanceOf(InvalidUserAgentError);
    expect(err).toMatchObject({ code: 'ERR_INVALID_USER_AGENT', problem: 'no-crawler', userAgent: HEADERS.chrome });
    expect(err.message).toContain('names no crawler');
    expect(err.message).toContain('productToken');
    // AI2Bot's real header has `(compatible)` without a product: it too must say its token.
    expect(() => new RobotsGate({ userAgent: HEADERS.ai2bot })).toThrow(/names no crawler/);
  });

  it('the refusal names the crawler the header carries outside compatible; (AI2Bot, Applebot), else MyBot', () => {
    const refusal = (userAgent: string) => {
      try {
        new RobotsGate({ userAgent });
      } catch (e) {
        return e as InvalidUserAgentError;
      }
      throw new Error(`${userAgent} was accepted`);
    };
    const ai2 = refusal(HEADERS.ai2bot);
    expect(ai2).toMatchObject({ problem: 'no-crawler' });
    expect(ai2.message).toContain('productToken: "AI2Bot"');
    expect(ai2.message).not.toContain('MyBot');
    const apple = refusal(APPLEBOT);
    expect(apple).toMatchObject({ problem: 'no-crawler' });
    expect(apple.message).toContain('productToken: "Applebot"');
    // Nothing crawler-like to suggest: the placeholder stays.
    expect(refusal(HEADERS.chrome).message).toContain('e.g. productToken: "MyBot"');
    // The suggestion is the token that works, and the refusal does not change what is read.
    expect(new RobotsGate({ userAgent: APPLEBOT, productToken: 'Applebot' }).productToken).toBe('Applebot');
    expect(productToken(APPLEBOT)).toBe('Mozilla');
  });

  it('likelyCrawlerProducts picks valid, non-browser products named like crawlers, in order', () => {
    expect(likelyCrawlerProducts(HEADERS.ai2bot)).toEqual(['AI2Bot']);
    expect(likelyCrawlerProducts(APPLEBOT)).toEqual(['Applebot']);
    expect(likelyCrawlerProducts(HEADERS.chrome)).toEqual([]);
    expect(likelyCrawlerProducts('Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)')).toEqual([]);
    // Case-insensitive words; an invalid token (a dot) and a URL's path are no candidates.
    expect(likelyCrawlerProducts('Mozilla/5.0 (compatible) Mail.RU_Bot/2.0 360SPIDER/1 SiteCrawler (+https://x.example/bot)')).toEqual(['360SPIDER', 'SiteCrawler']);
  });

  it('an empty or unsendable User-Agent is refused with the same error class', () => {
    expect(() => new RobotsGate({ userAgent: '  ' })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_USER_AGENT', problem: 'empty' }));
    expect(() => new RobotsGate({ userAgent: 'Bot/1 \x01' })).toThrow(expect.objectContaining({ problem: 'header' }));
  });
});

describe('the productToken option', () => {
  it('is matched instead of the token read from userAgent, which stays the header sent', async () => {
    const ua = 'Mozilla/5.0 (compatible; MyBot/2.0; +https://bot.example/) Chrome/120';
    await withGate({ userAgent: 'Crawler/9 MyBot/2.0 (+https://bot.example/)', productToken: 'mybot' }, async (g) => {
      expect(g.productToken).toBe('mybot');
      expect(await g.check(`${vh.origin('bot.test')}/bot-only/x`)).toMatchObject({ allowed: false, productToken: 'mybot', crawlDelaySeconds: 3 });
      expect((await g.check(`${vh.origin('bot.test')}/star/x`)).allowed).toBe(true);
    });
    expect(vh.requests('bot.test', '/robots.txt').at(-1)!.userAgent).toBe('Crawler/9 MyBot/2.0 (+https://bot.example/)');
    await withGate({ userAgent: ua, productToken: 'MyBot' }, async (g) => expect(g.productToken).toBe('MyBot'));
  });

  it('AI2Bot\'s real header works once its token is given: a bare product outside comments', async () => {
    await withGate({ userAgent: HEADERS.ai2bot, productToken: 'AI2Bot' }, async (g) => {
      expect(await g.check(`${vh.origin('names.test')}/ai2-only/x`)).toMatchObject({ allowed: false, group: { userAgents: ['AI2Bot'] } });
    });
  });

  it('must occur in the User-Agent as a product: TOKEN/, TOKEN;, TOKEN) or the whole string', () => {
    for (const [ua, token] of [
      ['MyBot/1.0', 'MyBot'],
      ['Mozilla/5.0 (compatible; MyBot; +https://x.example)', 'mybot'],
      ['Mozilla/5.0 (compatible; MyBot)', 'MYBOT'],
      ['MyBot', 'mybot'],
    ]) {
      expect(crawlerIdentity(ua, token).tokens, ua).toEqual([token]);
    }
    for (const [ua, token] of [
      [HEADERS.gptbot, 'ClaudeBot'],
      [HEADERS.gptbot, 'openai'], // a part of a URL in a comment
      [HEADERS.gptbot, 'GPT'], // a prefix
      [HEADERS.chrome, 'MyBot'],
      ['MyBotX/1.0', 'MyBot'],
    ]) {
      let err: InvalidUserAgentError | undefined;
      try {
        new RobotsGate({ userAgent: ua!, productToken: token! });
      } catch (e) {
        err = e as InvalidUserAgentError;
      }
      expect(err, `${ua} / ${token}`).toBeInstanceOf(InvalidUserAgentError);
      expect(err).toMatchObject({ code: 'ERR_INVALID_USER_AGENT', problem: 'not-in-user-agent', productToken: token });
      // The message names both.
      expect(err!.message).toContain(JSON.stringify(token));
      expect(err!.message).toContain(JSON.stringify(ua));
    }
  });

  it('refuses a browser or platform product as the token: the GPTBot group must not be skipped for Gecko', () => {
    for (const token of ['Gecko', 'Mozilla', 'AppleWebKit', 'compatible', 'KHTML', 'like']) {
      expect(() => new RobotsGate({ userAgent: HEADERS.gptbot, productToken: token }), token).toThrow(expect.objectContaining({ problem: 'browser-product', productToken: token }));
    }
    expect(() => new RobotsGate({ userAgent: HEADERS.gptbot, productToken: ['GPTBot', 'Gecko'] })).toThrow(/names a browser or platform/);
    expect(new RobotsGate({ userAgent: HEADERS.gptbot, productToken: 'GPTBot' }).productToken).toBe('GPTBot');
  });

  it('refuses a token that is not letters, digits, _ and -, and an empty list', () => {
    expect(() => new RobotsGate({ userAgent: 'my.bot/1', productToken: 'my.bot' })).toThrow(expect.objectContaining({ problem: 'not-a-token' }));
    expect(() => new RobotsGate({ userAgent: 'MyBot/1', productToken: [] })).toThrow(InvalidUserAgentError);
    expect(() => new RobotsGate({ userAgent: 'MyBot/1', productToken: ['MyBot', 7 as unknown as string] })).toThrow(/invalid productToken/);
  });
});

describe('fallback tokens', () => {
  const ua = 'MyBot-News/1.0 (+https://bot.example/news) MyBot/1.0';
  it('the first token some group names decides; only when none is named do * groups apply', async () => {
    await withGate({ userAgent: ua, productToken: ['MyBot-News', 'MyBot'] }, async (g) => {
      expect(g.productToken).toEqual(['MyBot-News', 'MyBot']);
      // Named: MyBot-News's own group, not MyBot's.
      expect(await g.check(`${vh.origin('news.test')}/news-only/x`)).toMatchObject({ allowed: false, productToken: 'MyBot-News' });
      expect((await g.check(`${vh.origin('news.test')}/bot-only/x`)).allowed).toBe(true);
      // Not named: falls back to MyBot's group, Crawl-delay included.
      const d = await g.check(`${vh.origin('bot.test')}/bot-only/x`);
      expect(d).toMatchObject({ allowed: false, productToken: 'MyBot', crawlDelaySeconds: 3, group: { userAgents: ['MyBot'] } });
      expect((await g.check(`${vh.origin('bot.test')}/star/x`)).allowed).toBe(true);
      // Neither named: the * groups.
      expect(await g.check(`${vh.origin('star.test')}/star/x`)).toMatchObject({ allowed: false, productToken: 'MyBot-News', group: { userAgents: ['*'] } });
    });
  });
});

describe('GPTBot\'s real header is disallowed through every gate door', () => {
  const url = () => `${vh.origin('names.test')}/articles/1`;
  it('gate.check, gate.fetch and the interceptor; nothing is sent to the URL', async () => {
    await withGate({ userAgent: HEADERS.gptbot }, async (g) => {
      expect(g.productToken).toBe('GPTBot');
      const d = await g.check(url());
      expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', productToken: 'GPTBot', rule: { type: 'disallow', pattern: '/' }, group: { userAgents: ['GPTBot'] } });

      const err = await g.fetch(url()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RobotsBlockedError);
      expect((err as RobotsBlockedError).message).toContain('GPTBot');

      const agent = createResolvingAgent(vh.resolve);
      try {
        const viaInterceptor = await request(url(), { dispatcher: agent.compose(g.interceptor()) }).catch((e: unknown) => e);
        expect(viaInterceptor).toBeInstanceOf(RobotsBlockedError);
      } finally {
        await agent.close();
      }
    });
    expect(vh.requests('names.test', '/articles/1')).toHaveLength(0);
  });
});
