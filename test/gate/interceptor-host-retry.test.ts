// Two ways a request through the interceptor went out past the gate (found by trying to break it),
// measured at the server:
// - a Host header naming another site: `request('http://a.test/z', { headers: { host: 'b.test' } })`
//   reached b.test, whose robots.txt disallows everything, decided and spaced as a.test's;
// - undici's retry interceptor composed below the gate re-sent a 503'd request 500 ms later, past
//   the back-off and the interval. Below the gate it now retries nothing; a request's own
//   `retryOptions` are followed by the gate, each retry checked and spaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interceptors, request } from 'undici';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { MemoryRateLimiter, RobotsBlockedError, RobotsGate, createResolvingAgent } from '../../src/index.js';

const UA = 'HostBot/1.0 (+https://bot.example/about)';
const BACKOFF_MS = 800;
let vh: VirtualHosts;
let busy = 0;

beforeAll(async () => {
  const open = site('User-agent: *\nAllow: /\n');
  vh = await startVirtualHosts({
    'front.test': open,
    'closed.test': site('User-agent: *\nDisallow: /\n'),
    'busy.test': (req, res) => {
      if (req.url === '/robots.txt') return open(req, res);
      // The first request for /r is answered 503 (no Retry-After); every later one 200.
      if (req.url === '/r' && busy++ === 0) return void res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${req.url}`);
    },
  });
});
afterAll(async () => {
  await vh?.close();
});

const newGate = () =>
  new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 100, jitter: 0, defaultBackoffMs: BACKOFF_MS, limiter: new MemoryRateLimiter() });

describe('the interceptor and the Host header', () => {
  it("decides a request by the site its Host header names: closed.test's robots.txt refuses it, and nothing reaches closed.test", async () => {
    const gate = newGate();
    const agent = createResolvingAgent(vh.resolve).compose(gate.interceptor());
    try {
      const port = vh.port;
      await expect(request(`${vh.origin('front.test')}/z`, { dispatcher: agent, headers: { host: `closed.test:${port}` } })).rejects.toBeInstanceOf(RobotsBlockedError);
      await expect(request(`${vh.origin('front.test')}/z`, { dispatcher: agent, headers: [['Host', `closed.test:${port}`]] as never })).rejects.toBeInstanceOf(RobotsBlockedError);
      expect(vh.requests('closed.test').map((r) => r.path)).toEqual(['/robots.txt']);
      // The same site named both ways, or no Host header: decided as before.
      const same = await request(`${vh.origin('front.test')}/ok`, { dispatcher: agent, headers: { host: `front.test:${port}` } });
      await same.body.text();
      expect(same.statusCode).toBe(200);
      // Two Host headers: the check read the first and undici sent the last (closed.test reached).
      for (const headers of [['host', `front.test:${port}`, 'host', `closed.test:${port}`], [['host', `front.test:${port}`], ['host', `closed.test:${port}`]]]) {
        await expect(request(`${vh.origin('front.test')}/two`, { dispatcher: agent, headers: headers as never })).rejects.toThrow(/2 host headers/);
      }
      expect(vh.requests('closed.test').map((r) => r.path)).toEqual(['/robots.txt']);
      // A Host header that is no host[:port] names no site: refused, nothing sent.
      await expect(request(`${vh.origin('front.test')}/bad`, { dispatcher: agent, headers: { host: 'front.test/evil' } })).rejects.toThrow(/invalid Host header/);
      expect(vh.requests('front.test').map((r) => r.path)).toEqual(['/robots.txt', '/ok']);
    } finally {
      await agent.close();
      await gate.close();
    }
  });
});

describe('the interceptor and undici retries', () => {
  it('a retry interceptor below the gate re-sends nothing; retryOptions of the request are retried through the gate, after the back-off', async () => {
    const gate = newGate();
    const below = createResolvingAgent(vh.resolve).compose(interceptors.retry({ maxRetries: 3, minTimeout: 10, statusCodes: [503] }), gate.interceptor());
    const plain = createResolvingAgent(vh.resolve).compose(gate.interceptor());
    try {
      const r1 = await request(`${vh.origin('busy.test')}/r`, { dispatcher: below });
      await r1.body.text();
      // The 503 comes back as it is: the retry below would have gone out unspaced.
      expect(r1.statusCode).toBe(503);
      expect(vh.requests('busy.test', '/r')).toHaveLength(1);
      busy = 0;
      const r2 = await request(`${vh.origin('busy.test')}/r`, {
        dispatcher: plain,
        retryOptions: { maxRetries: 2, minTimeout: 10, statusCodes: [503], methods: ['GET'] },
      } as Parameters<typeof request>[1]);
      expect(await r2.body.text()).toBe('page /r');
      expect(r2.statusCode).toBe(200);
      const log = vh.requests('busy.test', '/r');
      expect(log).toHaveLength(3);
      // Each 503 backs the host off; the retry waits it out, as the server saw.
      expect(log[1]!.startedAt - log[0]!.endedAt!).toBeGreaterThanOrEqual(BACKOFF_MS - 2);
      expect(log[2]!.startedAt - log[1]!.endedAt!).toBeGreaterThanOrEqual(BACKOFF_MS - 2);
    } finally {
      await below.close();
      await plain.close();
      await gate.close();
    }
  });
});
