// undici's redirect interceptor and the gate's, composed either way round: no redirect hop reaches
// a host unchecked or sooner than its Crawl-delay. Composed outside the gate (after it in
// compose()), each hop comes through the gate; composed below it, it would follow hops the gate
// never sees, so there it follows none; a request's own `maxRedirections` is followed by the gate,
// each hop checked and spaced. Gaps are measured at the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interceptors, request } from 'undici';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { MemoryRateLimiter, RobotsBlockedError, RobotsGate, createResolvingAgent } from '../../src/index.js';

const UA = 'HopBot/1.0 (+https://bot.example/about)';
const DELAY_MS = 1_000;
let vh: VirtualHosts;

beforeAll(async () => {
  const slow = site('User-agent: *\nDisallow: /private\nCrawl-delay: 1\n');
  vh = await startVirtualHosts({
    'from.test': (req, res) => {
      const to = req.url!.startsWith('/to-private') ? '/private/secret' : '/open';
      if (req.url === '/robots.txt') return site('User-agent: *\nAllow: /\n')(req, res);
      res.writeHead(302, { location: `${vh.origin('slow.test')}${to}${req.url!.slice(req.url!.indexOf('?'))}` }).end();
    },
    'slow.test': slow,
  });
});
afterAll(async () => {
  await vh?.close();
});

const newGate = () => new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 0, jitter: 0, limiter: new MemoryRateLimiter() });
const secretHits = () => vh.requests('slow.test').filter((r) => r.path.startsWith('/private'));
/** ms from the end of slow.test's robots.txt response to the arrival of its next request. */
const gapAfterRobots = (path: string) => {
  const log = vh.requests('slow.test');
  const robots = log.filter((r) => r.path === '/robots.txt').at(-1)!;
  const hop = log.find((r) => r.path.startsWith(path) && r.startedAt > robots.startedAt)!;
  return hop.startedAt - robots.endedAt!;
};

describe('undici redirect interceptor beside the gate', () => {
  it('outside the gate: the hop to a disallowed path is refused, an allowed one waits its Crawl-delay', async () => {
    const gate = newGate();
    const agent = createResolvingAgent(vh.resolve).compose(gate.interceptor(), interceptors.redirect({ maxRedirections: 3 }));
    try {
      await expect(request(`${vh.origin('from.test')}/to-private?a`, { dispatcher: agent })).rejects.toBeInstanceOf(RobotsBlockedError);
      const r = await request(`${vh.origin('from.test')}/to-open?a`, { dispatcher: agent });
      await r.body.text();
      expect(r.statusCode).toBe(200);
      expect(gapAfterRobots('/open?a')).toBeGreaterThanOrEqual(DELAY_MS - 5);
      expect(secretHits()).toEqual([]);
    } finally {
      await agent.close();
      await gate.close();
    }
  });

  it('below the gate: it follows no hop the gate would not see; the 302 comes back as it is', async () => {
    const gate = newGate();
    const agent = createResolvingAgent(vh.resolve).compose(interceptors.redirect({ maxRedirections: 3 }), gate.interceptor());
    try {
      const r = await request(`${vh.origin('from.test')}/to-private?b`, { dispatcher: agent });
      await r.body.text();
      expect(r.statusCode).toBe(302);
      expect(vh.requests('slow.test').filter((x) => x.path.includes('?b'))).toEqual([]);
      expect(secretHits()).toEqual([]);
    } finally {
      await agent.close();
      await gate.close();
    }
  });

  it('a request\'s own maxRedirections: the gate follows, each hop checked and spaced', async () => {
    const gate = newGate();
    const agent = createResolvingAgent(vh.resolve).compose(interceptors.redirect(), gate.interceptor());
    try {
      await expect(request(`${vh.origin('from.test')}/to-private?c`, { dispatcher: agent, maxRedirections: 3 } as never)).rejects.toBeInstanceOf(RobotsBlockedError);
      const r = await request(`${vh.origin('from.test')}/to-open?c`, { dispatcher: agent, maxRedirections: 3 } as never);
      await r.body.text();
      expect(r.statusCode).toBe(200);
      expect(gapAfterRobots('/open?c')).toBeGreaterThanOrEqual(DELAY_MS - 5);
      expect(secretHits()).toEqual([]);
    } finally {
      await agent.close();
      await gate.close();
    }
  });
});
