// Every request gated: gate.fetch hop by hop, and the undici interceptor under a plain fetch().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getGlobalDispatcher, setGlobalDispatcher, fetch as undiciFetch, request } from 'undici';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsGate, RobotsBlockedError, TooManyRedirectsError, createResolvingAgent } from '../../src/index.js';
import type { FetchHop } from '../../src/index.js';

const UA = 'HopBot/1.0 (+https://bot.example/about)';
let vh: VirtualHosts;
let gate: RobotsGate;

beforeAll(async () => {
  vh = await startVirtualHosts({
    'a.test': (req, res) => {
      const path = req.url ?? '/';
      if (path === '/robots.txt') return void res.writeHead(200).end('User-agent: *\nDisallow: /secret\n');
      if (path === '/go-b') return void res.writeHead(302, { location: `${vh.origin('b.test')}/private/doc` }).end();
      if (path === '/go-b-open') return void res.writeHead(301, { location: `${vh.origin('b.test')}/open` }).end();
      if (path === '/post') return void res.writeHead(307, { location: '/echo' }).end();
      if (path === '/echo') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => res.writeHead(200).end(`${req.method} ${body} ${req.headers['user-agent']}`));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`a page ${path}`);
    },
    'b.test': site('User-agent: hopbot\nDisallow: /private\n'),
    'c.test': (_req, res) => void res.writeHead(503).end('down'),
    // Its robots.txt is on another host.
    'rr.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: `${vh.origin('target.test')}/robots.txt` }).end();
      res.writeHead(200).end('page');
    },
    'target.test': site('User-agent: *\nDisallow: /private\n'),
    'moved.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: '/robots-real.txt' }).end();
      if (req.url === '/robots-real.txt') return void res.writeHead(200).end('User-agent: *\nDisallow: /private\n');
      res.writeHead(200).end('page');
    },
  });
  gate = new RobotsGate({ userAgent: UA, timeoutMs: 5000, resolve: vh.resolve, minIntervalMs: 0, jitter: 0 });
});
afterAll(async () => {
  await gate?.close();
  await vh?.close();
});

describe('gate.fetch', () => {
  it('sends the gate User-Agent and returns a normal Response', async () => {
    const res = await gate.fetch(`${vh.origin('a.test')}/hello`, { headers: { 'user-agent': 'Spoof/1.0', 'x-k': 'v' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('a page /hello');
    expect(res.url).toBe(`${vh.origin('a.test')}/hello`);
    expect(res.redirected).toBe(false);
    expect(vh.requests('a.test', '/hello')[0]!.userAgent).toBe(UA);
  });

  it('rejects a disallowed URL with RobotsBlockedError before sending anything to it', async () => {
    const err = await gate.fetch(`${vh.origin('a.test')}/secret/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RobotsBlockedError);
    const blocked = err as RobotsBlockedError;
    expect(blocked.code).toBe('ERR_ROBOTS_BLOCKED');
    expect(blocked.decision).toMatchObject({ allowed: false, rule: { pattern: '/secret', line: 2 } });
    expect(blocked.message).toContain('Disallow: /secret');
    expect(blocked.message).toContain('line 2');
    expect(blocked.message).toContain(`${vh.origin('a.test')}/robots.txt`);
    expect(vh.requests('a.test', '/secret/x')).toHaveLength(0);
  });

  it('names the file the rule came from when robots.txt redirected, and the URL asked at', async () => {
    const err = (await gate.fetch(`${vh.origin('rr.test')}/private/x`).catch((e: unknown) => e)) as RobotsBlockedError;
    expect(err).toBeInstanceOf(RobotsBlockedError);
    expect(err.message).toContain(`line 2 of ${vh.origin('target.test')}/robots.txt (asked at ${vh.origin('rr.test')}/robots.txt)`);
  });

  it('names an unreachable robots.txt in the error', async () => {
    const err = (await gate.fetch(`${vh.origin('c.test')}/x`).catch((e: unknown) => e)) as RobotsBlockedError;
    expect(err.decision.reason).toBe('unreachable');
    expect(err.message).toMatch(/unreachable \(503\)/);
    expect(vh.requests('c.test', '/x')).toHaveLength(0);
  });

  it('stops a redirect into a disallowed path on another origin before that origin sees the page request', async () => {
    const hops: FetchHop[] = [];
    const err = await gate.fetch(`${vh.origin('a.test')}/go-b`, { onHop: (h) => hops.push(h) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RobotsBlockedError);
    expect((err as RobotsBlockedError).decision).toMatchObject({ origin: vh.origin('b.test'), rule: { pattern: '/private' } });
    expect(vh.requests('b.test', '/private/doc')).toHaveLength(0);
    expect(vh.requests('b.test', '/robots.txt')).toHaveLength(1);
    expect(hops.map((h) => [h.url, h.parentUrl, h.status, h.decision.allowed])).toEqual([
      [`${vh.origin('a.test')}/go-b`, null, 302, true],
      [`${vh.origin('b.test')}/private/doc`, `${vh.origin('a.test')}/go-b`, undefined, false],
    ]);
  });

  it('follows allowed hops, each checked against its own origin', async () => {
    const hops: FetchHop[] = [];
    const res = await gate.fetch(`${vh.origin('a.test')}/go-b-open`, { onHop: (h) => hops.push(h) });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${vh.origin('b.test')}/open`);
    expect(res.redirected).toBe(true);
    expect(hops.map((h) => h.decision.origin)).toEqual([vh.origin('a.test'), vh.origin('b.test')]);
    expect(hops[0]!.location).toBe(`${vh.origin('b.test')}/open`);
  });

  it('keeps method and body across a 307; redirect: manual returns the redirect', async () => {
    const res = await gate.fetch(`${vh.origin('a.test')}/post`, { method: 'POST', body: 'payload' });
    expect(await res.text()).toBe(`POST payload ${UA}`);
    const manual = await gate.fetch(`${vh.origin('a.test')}/go-b`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.redirected).toBe(false);
    await manual.body?.cancel();
  });

  it('stops after maxRedirects hops with TooManyRedirectsError', async () => {
    const err = await gate.fetch(`${vh.origin('a.test')}/go-b-open`, { maxRedirects: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyRedirectsError);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TooManyRedirectsError).code).toBe('ERR_TOO_MANY_REDIRECTS');
  });

  it('a malformed URL rejects with a TypeError naming it', async () => {
    await expect(gate.fetch('not a url')).rejects.toThrow(/not a url/);
  });
});

describe('gate.interceptor()', () => {
  it('a global dispatcher with the interceptor blocks a plain fetch(), redirects included', async () => {
    const previous = getGlobalDispatcher();
    const agent = createResolvingAgent(vh.resolve);
    setGlobalDispatcher(agent.compose(gate.interceptor()));
    try {
      // Node's own fetch and undici's fetch both go through the global dispatcher.
      const blocked = await fetch(`${vh.origin('a.test')}/secret/plain`).catch((e: unknown) => e);
      expect(blocked).toBeInstanceOf(TypeError);
      expect((blocked as Error & { cause: unknown }).cause).toMatchObject({ code: 'ERR_ROBOTS_BLOCKED' });
      expect(vh.requests('a.test', '/secret/plain')).toHaveLength(0);

      const viaUndici = await undiciFetch(`${vh.origin('a.test')}/go-b`).catch((e: unknown) => e);
      expect((viaUndici as Error & { cause: unknown }).cause).toBeInstanceOf(RobotsBlockedError);
      expect(vh.requests('b.test', '/private/doc')).toHaveLength(0);

      const ok = await fetch(`${vh.origin('a.test')}/fine`, { headers: { 'user-agent': 'Other/9' } });
      expect(await ok.text()).toBe('a page /fine');
      expect(vh.requests('a.test', '/fine')[0]!.userAgent).toBe(UA);
    } finally {
      setGlobalDispatcher(previous);
      await agent.close();
    }
  });

  it('a gate sending through its own interceptor fetches robots.txt (redirects too) without recursing', async () => {
    const agent = createResolvingAgent(vh.resolve);
    let self: RobotsGate | undefined;
    const dispatcher = agent.compose((dispatch) => (opts, handler) => self!.interceptor()(dispatch)(opts, handler));
    self = new RobotsGate({ userAgent: UA, dispatcher, timeoutMs: 5000, minIntervalMs: 0, jitter: 0 });
    try {
      const d = await self.check(`${vh.origin('moved.test')}/private`);
      expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
      await expect(self.fetch(`${vh.origin('moved.test')}/private`)).rejects.toThrow(RobotsBlockedError);
      expect(await (await self.fetch(`${vh.origin('moved.test')}/open`)).text()).toBe('page');
      expect(vh.requests('moved.test', '/robots-real.txt')).toHaveLength(1);
    } finally {
      await self.close();
      await agent.close();
    }
  });

  it('lets robots.txt requests through without recursing', async () => {
    const agent = createResolvingAgent(vh.resolve);
    const gated = agent.compose(gate.interceptor());
    try {
      const own = new RobotsGate({ userAgent: UA, dispatcher: gated, timeoutMs: 5000, minIntervalMs: 0, jitter: 0 });
      const d = await own.check(`${vh.origin('b.test')}/private/x`);
      expect(d.allowed).toBe(false);
      const res = await request(`${vh.origin('b.test')}/robots.txt`, { dispatcher: gated });
      expect(res.statusCode).toBe(200);
      await res.body.text();
      await own.close();
    } finally {
      await agent.close();
    }
  });
});
