// Polite at every door: gaps measured on the server's side (request start minus the previous
// response's end, per host) for gate.fetch, the interceptor, robots.txt requests, each term of
// the interval, Retry-After, abort and exempt. Lower bounds are strict; upper bounds generous.
import diagnostics_channel from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch as undiciFetch, getGlobalDispatcher, request, setGlobalDispatcher } from 'undici';
import { startVirtualHosts, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';
import { InvalidOptionError, RobotsBlockedError, RobotsGate, createResolvingAgent, MemoryRateLimiter } from '../../src/index.js';
import type { Decision, WaitEvent } from '../../src/index.js';

const UA = 'PaceBot/1.0 (+https://bot.example/about)';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let vh: VirtualHosts;
const robots: Record<string, string> = {
  'cd.test': 'User-agent: *\nCrawl-delay: 0.3\n',
  'floor.test': 'User-agent: *\nAllow: /\n',
  'ov.test': 'User-agent: *\nDisallow: /\n',
  'slow.test': 'User-agent: *\nAllow: /\n',
  'busy.test': 'User-agent: *\nAllow: /\n',
  'ra.test': 'User-agent: *\nAllow: /\n',
  'bad-ra.test': 'User-agent: *\nAllow: /\n',
  'ab.test': 'User-agent: *\nAllow: /\n',
  'ref.test': 'User-agent: *\nAllow: /\n',
  'to.test': 'User-agent: *\nAllow: /\n',
  'int.test': 'User-agent: *\nAllow: /\n',
  'two.test': 'User-agent: *\nAllow: /\n',
  'long.test': 'User-agent: *\nCrawl-delay: 100\n',
  'api.test': 'User-agent: *\nDisallow: /\n',
};

function handler(host: string) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const path = req.url ?? '/';
    if (host === 'from.test' && path === '/robots.txt') return void res.writeHead(301, { location: `${vh.origin('to.test')}/robots.txt` }).end();
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots[host] ?? '');
    if (host === 'slow.test') return void setTimeout(() => res.writeHead(200).end(`slow ${path}`), 60);
    if (host === 'ra.test' && path === '/limited') return void res.writeHead(429, { 'retry-after': '1' }).end('slow down');
    if (host === 'bad-ra.test' && path === '/limited') return void res.writeHead(503, { 'retry-after': '0.1' }).end('down');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${path}`);
  };
}

beforeAll(async () => {
  const hosts = [...Object.keys(robots), 'from.test'];
  vh = await startVirtualHosts(Object.fromEntries(hosts.map((h) => [h, handler(h)])));
});
afterAll(async () => {
  await vh?.close();
});

/** Requests to `host` in arrival order, each with the gap since the previous response ended. */
function gaps(host: string): { path: string; gap: number | null; entry: LoggedRequest }[] {
  const log = vh.requests(host).slice().sort((a, b) => a.startedAt - b.startedAt);
  return log.map((entry, i) => ({ path: entry.path, gap: i === 0 ? null : entry.startedAt - log[i - 1]!.endedAt!, entry }));
}

function gate(extra: Partial<ConstructorParameters<typeof RobotsGate>[0]> = {}): RobotsGate {
  return new RobotsGate({ userAgent: UA, resolve: vh.resolve, timeoutMs: 5000, minIntervalMs: 150, jitter: 0, limiter: new MemoryRateLimiter(), ...extra });
}

function onWait(): { events: WaitEvent[]; stop(): void } {
  const events: WaitEvent[] = [];
  const fn = (m: unknown) => void events.push(m as WaitEvent);
  diagnostics_channel.subscribe('robots-gate:wait', fn);
  return { events, stop: () => diagnostics_channel.unsubscribe('robots-gate:wait', fn) };
}

describe('gate.fetch keeps each host interval', () => {
  it('Crawl-delay: robots.txt, then two pages, each at least 300 ms after the previous response', async () => {
    const g = gate();
    const w = onWait();
    try {
      for (const p of ['/products/1', '/old']) await (await g.fetch(`${vh.origin('cd.test')}${p}`)).text();
      const seen = gaps('cd.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/products/1', '/old']);
      // The robots.txt request is a request the site saw: the first page keeps the interval after it.
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(300);
      // The page waits say why (a robots.txt request may wait too, at the floor). A page that finds
      // its slot open already (a loaded machine took 300 ms to send it) waits for nothing and says
      // nothing: what is asserted is the reason of every wait there was, and that there was one.
      const mine = w.events.filter((e) => e.host.startsWith('cd.test') && !e.url?.endsWith('/robots.txt'));
      expect(mine.length).toBeGreaterThan(0);
      for (const e of mine) expect([e.url?.replace(/^.*\//, '/'), e.reason, e.intervalMs]).toEqual([expect.stringMatching(/^\/(1|old)$/), 'crawl-delay', 300]);
    } finally {
      w.stop();
      await g.close();
    }
  });

  it('the floor with jitter: gaps of at least minIntervalMs, the drawn intervals within 1 to 1 + jitter', async () => {
    const g = gate({ minIntervalMs: 120, jitter: 0.5 });
    const w = onWait();
    try {
      for (let i = 0; i < 4; i++) await (await g.fetch(`${vh.origin('floor.test')}/p${i}`)).text();
      const seen = gaps('floor.test');
      expect(seen).toHaveLength(5);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(120);
      const mine = w.events.filter((e) => e.host.startsWith('floor.test'));
      expect(mine.every((e) => e.reason === 'floor' && e.intervalMs >= 120 && e.intervalMs <= 180)).toBe(true);
      // Each gap at least its own drawn interval.
      for (let i = 0; i < mine.length; i++) expect(seen[i + 1]!.gap!).toBeGreaterThanOrEqual(mine[i]!.intervalMs);
    } finally {
      w.stop();
      await g.close();
    }
  });

  it('an overridden host is slowed to overrideIntervalMs, not just flagged', async () => {
    const g = gate({ override: ['ov.test'], overrideIntervalMs: 350 });
    const w = onWait();
    try {
      for (let i = 0; i < 2; i++) await (await g.fetch(`${vh.origin('ov.test')}/x${i}`)).text();
      expect(g.isUnderOverride('ov.test')).toBe(true);
      const seen = gaps('ov.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/x0', '/x1']);
      // robots.txt came before the override was known: floor; after it, the override interval.
      expect(seen[1]!.gap!).toBeGreaterThanOrEqual(150);
      expect(seen[2]!.gap!).toBeGreaterThanOrEqual(350);
      expect(w.events.some((e) => e.host.startsWith('ov.test') && e.reason === 'override' && e.intervalMs === 350)).toBe(true);
    } finally {
      w.stop();
      await g.close();
    }
  });

  it('one request in flight per host, sent in the order asked (FIFO), even when asked at once', async () => {
    const g = gate({ minIntervalMs: 50 });
    try {
      await Promise.all([1, 2, 3, 4].map(async (i) => (await g.fetch(`${vh.origin('slow.test')}/n${i}`)).text()));
      const seen = gaps('slow.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/n1', '/n2', '/n3', '/n4']);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(50);
    } finally {
      await g.close();
    }
  });

  it('a 429 with Retry-After: 1 holds the host a second; the wait says backoff, and how long', async () => {
    const g = gate();
    const w = onWait();
    try {
      const r = await g.fetch(`${vh.origin('ra.test')}/limited`);
      expect(r.status).toBe(429);
      await r.text();
      await (await g.fetch(`${vh.origin('ra.test')}/after`)).text();
      const seen = gaps('ra.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/limited', '/after']);
      expect(seen[2]!.gap!).toBeGreaterThanOrEqual(1000);
      expect(seen[2]!.gap!).toBeLessThan(5000);
      // The interval it names is the back-off's (Retry-After: 1), not the floor's 150 ms.
      expect(w.events.filter((e) => e.host.startsWith('ra.test') && e.reason === 'backoff').map((e) => e.intervalMs)).toEqual([1000]);
    } finally {
      w.stop();
      await g.close();
    }
  });

  it('a Retry-After that is not a valid value (0.1) is no back-off of 100 ms: defaultBackoffMs applies', async () => {
    const g = gate({ defaultBackoffMs: 600 });
    try {
      await (await g.fetch(`${vh.origin('bad-ra.test')}/limited`)).text();
      await (await g.fetch(`${vh.origin('bad-ra.test')}/after`)).text();
      const seen = gaps('bad-ra.test');
      expect(seen[2]!.path).toBe('/after');
      expect(seen[2]!.gap!).toBeGreaterThanOrEqual(600);
    } finally {
      await g.close();
    }
  });

  it('an abort during the wait rejects with the reason, sends nothing, and frees the slot', async () => {
    const g = gate({ minIntervalMs: 400 });
    try {
      await (await g.fetch(`${vh.origin('ab.test')}/first`)).text();
      const controller = new AbortController();
      const waiting = g.fetch(`${vh.origin('ab.test')}/never`, { signal: controller.signal });
      const next = g.fetch(`${vh.origin('ab.test')}/next`);
      setTimeout(() => controller.abort(new Error('user gave up')), 50);
      await expect(waiting).rejects.toThrow('user gave up');
      await (await next).text();
      const seen = gaps('ab.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/first', '/next']);
      expect(seen[2]!.gap!).toBeGreaterThanOrEqual(400);
      // The aborted request held no slot: /next went at its own interval, not one more after it.
      expect(seen[2]!.gap!).toBeLessThan(790);
    } finally {
      await g.close();
    }
  });

  it('check({ signal }) aborts the wait for robots.txt', async () => {
    const g = gate();
    try {
      await g.check(`${vh.origin('ab.test')}/warm`);
      const controller = new AbortController();
      controller.abort(new Error('not now'));
      // A warm origin needs no wait: the decision comes whatever the signal says.
      await expect(g.check(`${vh.origin('ab.test')}/x`, { signal: controller.signal })).resolves.toMatchObject({ allowed: true });
      const fresh = gate();
      await expect(fresh.check(`${vh.origin('floor.test')}/y`, { signal: controller.signal })).rejects.toThrow('not now');
      await fresh.close();
    } finally {
      await g.close();
    }
  });
});

describe('robots.txt requests take the host slot', () => {
  it('a refresh waits after the last page, and the next page waits after the refresh', async () => {
    const g = gate({ minIntervalMs: 200 });
    try {
      await (await g.fetch(`${vh.origin('ref.test')}/a`)).text();
      await g.refresh(vh.origin('ref.test'));
      await (await g.fetch(`${vh.origin('ref.test')}/b`)).text();
      const seen = gaps('ref.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/a', '/robots.txt', '/b']);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(200);
    } finally {
      await g.close();
    }
  });

  it('a robots.txt redirected into another host counts against that host', async () => {
    const g = gate({ minIntervalMs: 250 });
    try {
      await g.check(`${vh.origin('from.test')}/x`);
      await (await g.fetch(`${vh.origin('to.test')}/page`)).text();
      const seen = gaps('to.test');
      // The hop of from.test's robots.txt (which is to.test's own file too: not asked for again),
      // then the page, spaced from that hop.
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/page']);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(250);
    } finally {
      await g.close();
    }
  });
});

describe('the interceptor', () => {
  it('spaces every plain fetch() under setGlobalDispatcher', async () => {
    const g = gate({ minIntervalMs: 200 });
    const before = getGlobalDispatcher();
    const agent = createResolvingAgent(vh.resolve);
    setGlobalDispatcher(agent.compose(g.interceptor()));
    try {
      for (let i = 0; i < 3; i++) await (await undiciFetch(`${vh.origin('int.test')}/i${i}`)).text();
      const res = await request(`${vh.origin('int.test')}/via-request`);
      await res.body.text();
      const seen = gaps('int.test');
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/i0', '/i1', '/i2', '/via-request']);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(200);
    } finally {
      setGlobalDispatcher(before);
      await g.close();
      await agent.close();
    }
  });

  it('a request signal aborts the wait: nothing is sent', async () => {
    const g = gate({ minIntervalMs: 400 });
    const agent = createResolvingAgent(vh.resolve).compose(g.interceptor());
    try {
      await (await undiciFetch(`${vh.origin('int.test')}/warm`, { dispatcher: agent })).text();
      const controller = new AbortController();
      const p = undiciFetch(`${vh.origin('int.test')}/aborted`, { dispatcher: agent, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(p).rejects.toThrow();
      const q = request(`${vh.origin('int.test')}/aborted-too`, { dispatcher: agent, signal: AbortSignal.timeout(50) });
      await expect(q).rejects.toThrow();
      await sleep(450);
      expect(vh.requests('int.test', '/aborted')).toHaveLength(0);
      expect(vh.requests('int.test', '/aborted-too')).toHaveLength(0);
    } finally {
      await g.close();
      await agent.close();
    }
  });

  it('gate.fetch and the interceptor of another gate, together on one host, share one clock', async () => {
    const limiter = new MemoryRateLimiter();
    const g1 = gate({ limiter, minIntervalMs: 120 });
    const g2 = gate({ limiter, minIntervalMs: 120 });
    const agent = createResolvingAgent(vh.resolve).compose(g2.interceptor());
    try {
      await Promise.all([
        (async () => {
          for (let i = 0; i < 3; i++) await (await g1.fetch(`${vh.origin('two.test')}/f${i}`)).text();
        })(),
        (async () => {
          for (let i = 0; i < 3; i++) await (await undiciFetch(`${vh.origin('two.test')}/i${i}`, { dispatcher: agent })).text();
        })(),
      ]);
      const seen = gaps('two.test');
      expect(seen.filter((s) => s.path !== '/robots.txt')).toHaveLength(6);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(120);
    } finally {
      await g1.close();
      await g2.close();
      await agent.close();
    }
  });
});

describe('options', () => {
  it('a Crawl-delay over maxCrawlDelayMs blocks with reason crawl-delay-too-long; clampCrawlDelay spaces at the maximum', async () => {
    const g = gate({ maxCrawlDelayMs: 300 });
    try {
      const err = (await g.fetch(`${vh.origin('long.test')}/x`).catch((e: unknown) => e)) as RobotsBlockedError;
      expect(err).toBeInstanceOf(RobotsBlockedError);
      expect(err.decision.reason).toBe('crawl-delay-too-long');
      expect(err.message).toContain('Crawl-delay of 100 s');
      expect(vh.requests('long.test', '/x')).toHaveLength(0);
    } finally {
      await g.close();
    }
    const c = gate({ maxCrawlDelayMs: 300, clampCrawlDelay: true });
    try {
      for (const p of ['/a', '/b']) await (await c.fetch(`${vh.origin('long.test')}${p}`)).text();
      const seen = gaps('long.test').filter((s) => s.path !== '/robots.txt' || s.gap !== null);
      const b = seen.find((s) => s.path === '/b')!;
      expect(b.gap!).toBeGreaterThanOrEqual(300);
    } finally {
      await c.close();
    }
  });

  it('exempt hosts pass unchecked and unspaced, each published as a decision with reason exempt', async () => {
    const decisions: Decision[] = [];
    const fn = (m: unknown) => void decisions.push(m as Decision);
    diagnostics_channel.subscribe('robots-gate:decision', fn);
    const g = gate({ minIntervalMs: 2000, exempt: ['api.test'] });
    try {
      for (let i = 0; i < 2; i++) await (await g.fetch(`${vh.origin('api.test')}/v1/q${i}`)).text();
      const seen = gaps('api.test');
      expect(seen.map((s) => s.path)).toEqual(['/v1/q0', '/v1/q1']);
      expect(seen[1]!.gap!).toBeLessThan(1500);
      expect(decisions.filter((d) => d.origin === vh.origin('api.test')).map((d) => d.reason)).toEqual(['exempt', 'exempt']);
      expect(() => gate({ exempt: 'api.test' as never })).toThrow(/exempt/);
    } finally {
      diagnostics_channel.unsubscribe('robots-gate:decision', fn);
      await g.close();
    }
  });

  it("through the interceptor a caller's own /robots.txt requests keep the host's Crawl-delay", async () => {
    const g = gate();
    const agent = createResolvingAgent(vh.resolve).compose(g.interceptor());
    const before = vh.requests('cd.test').length;
    try {
      for (let i = 0; i < 2; i++) await (await undiciFetch(`${vh.origin('cd.test')}/robots.txt`, { dispatcher: agent })).text();
      const seen = gaps('cd.test').slice(before);
      // The gate's own load, then the caller's two.
      expect(seen.map((s) => s.path)).toEqual(['/robots.txt', '/robots.txt', '/robots.txt']);
      for (const s of seen.slice(1)) expect(s.gap!).toBeGreaterThanOrEqual(300);
    } finally {
      await agent.close();
      await g.close();
    }
  });

  it('through the interceptor an exempt request keeps its own User-Agent; a gated one carries the gate', async () => {
    const g = gate({ exempt: ['api.test'] });
    const agent = createResolvingAgent(vh.resolve).compose(g.interceptor());
    try {
      const headers = { 'user-agent': 'internal-client/2' };
      await (await undiciFetch(`${vh.origin('api.test')}/v1/own`, { dispatcher: agent, headers })).text();
      await (await undiciFetch(`${vh.origin('floor.test')}/crawled`, { dispatcher: agent, headers })).text();
      expect(vh.requests('api.test', '/v1/own').map((r) => r.userAgent)).toEqual(['internal-client/2']);
      expect(vh.requests('floor.test', '/crawled').map((r) => r.userAgent)).toEqual([UA]);
    } finally {
      await agent.close();
      await g.close();
    }
  });

  it('an exempt entry with a path, query or fragment throws, naming it and pointing to a predicate; an origin does not', async () => {
    for (const e of ['http://b.test:8081/nope', 'http://b.test:8081/?q=1', 'http://b.test:8081/#top', 'https://b.test/a/']) {
      let err: unknown;
      try {
        gate({ exempt: ['api.test', e] });
      } catch (x) {
        err = x;
      }
      expect(err, e).toBeInstanceOf(InvalidOptionError);
      expect((err as Error).message).toContain(JSON.stringify(e));
      expect((err as Error).message).toMatch(/predicate/);
      // The example predicate is the entry's own origin and path, not a made-up one.
      const u = new URL(e);
      expect((err as Error).message).toContain(`url.origin === ${JSON.stringify(u.origin)} && url.pathname.startsWith(${JSON.stringify(u.pathname)})`);
    }
    for (const e of ['http://b.test:8081', 'http://b.test:8081/', 'b.test']) await gate({ exempt: [e] }).close();
  });
});
