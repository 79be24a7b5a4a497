// The gate's own behaviour: identity, single flight, caching, stale copies, policy changes,
// override, bad input. Real loopback servers; small intervals so the file runs in seconds.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import diagnostics_channel from 'node:diagnostics_channel';
import type http from 'node:http';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsGate, InvalidUserAgentError, UnsupportedSchemeError, MemoryPolicyStore } from '../../src/index.js';
import type { PolicyChange, PolicyRecord } from '../../src/index.js';

const UA = 'GateBot/2.1 (+https://bot.example/about)';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A host whose robots.txt answer the test can change between fetches. */
function scripted() {
  const state = { status: 200, body: 'User-agent: *\nDisallow: /private\n', headers: {} as http.OutgoingHttpHeaders, delayMs: 0 };
  const handler = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url !== '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
    if (state.delayMs) await sleep(state.delayMs);
    res.writeHead(state.status, { 'content-type': 'text/plain', ...state.headers }).end(state.body);
  };
  return { state, handler };
}

const flight = scripted();
const flaky = scripted();
const vanish = scripted();
const vanishAllow = scripted();
const changing = scripted();
const cc = scripted();
let vh: VirtualHosts;
const gates: RobotsGate[] = [];
const newGate = (o: Partial<ConstructorParameters<typeof RobotsGate>[0]> = {}) => {
  const g = new RobotsGate({ userAgent: UA, timeoutMs: 5000, resolve: vh.resolve, minIntervalMs: 0, jitter: 0, ...o });
  gates.push(g);
  return g;
};

beforeAll(async () => {
  vh = await startVirtualHosts({
    'a.test': site('User-agent: gatebot\nDisallow: /only-us\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /\n'),
    'b.test': site('User-agent: *\nDisallow: /private\nSitemap: /sitemap.xml\n'),
    'query.test': site('User-agent: *\nDisallow: /*?\n'),
    'c.test': site(null),
    'flight.test': flight.handler,
    'flaky.test': flaky.handler,
    'vanish.test': vanish.handler,
    'vanish-allow.test': vanishAllow.handler,
    'changing.test': changing.handler,
    'cc.test': cc.handler,
  });
});
afterEach(async () => {
  await Promise.all(gates.splice(0).map((g) => g.close()));
});
afterAll(async () => {
  await vh?.close();
});

describe('identity', () => {
  it('matches the product token of the userAgent, and sends that userAgent', async () => {
    const gate = newGate();
    expect(gate.productToken).toBe('GateBot');
    expect(gate.userAgent).toBe(UA);
    const own = await gate.check(`${vh.origin('a.test')}/only-us/x`);
    const other = await gate.check(`${vh.origin('a.test')}/elsewhere`);
    expect(own).toMatchObject({ allowed: false, rule: { pattern: '/only-us', line: 2 }, crawlDelaySeconds: 2 });
    expect(own.group?.userAgents).toEqual(['gatebot']);
    expect(other).toMatchObject({ allowed: true, reason: 'no-matching-rule' });
    expect(vh.requests('a.test', '/robots.txt').map((r) => r.userAgent)).toEqual([UA]);
  });

  it('refuses a User-Agent whose product token is not letters, digits, _ and -', () => {
    expect(() => new RobotsGate({ userAgent: 'my.bot/1.0' })).toThrow(InvalidUserAgentError);
    expect(() => new RobotsGate({ userAgent: 'my.bot/1.0' })).toThrow(/RFC 9309 §2\.2\.1/);
    expect(() => new RobotsGate({ userAgent: 'My Bot' as string })).not.toThrow(); // token "My"
    expect(() => new RobotsGate({ userAgent: '' })).toThrow(TypeError);
    expect(() => new RobotsGate({ userAgent: 'Bot/1', maxBytes: -1 })).toThrow(RangeError);
    expect(() => new RobotsGate({ userAgent: 'Bot/1', timeoutMs: Number.NaN })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'timeoutMs' }));
    expect(() => new RobotsGate({ userAgent: 'Bot/1', resolve: ['bad entry'] })).toThrow(/HOST:PORT:ADDR/);
  });

  it('exposes overrideIntervalMs, from the environment unless given', () => {
    const before = process.env.ROBOTS_OVERRIDE_INTERVAL_MS;
    try {
      delete process.env.ROBOTS_OVERRIDE_INTERVAL_MS;
      expect(new RobotsGate({ userAgent: UA }).overrideIntervalMs).toBe(10_000);
      process.env.ROBOTS_OVERRIDE_INTERVAL_MS = '250';
      expect(new RobotsGate({ userAgent: UA }).overrideIntervalMs).toBe(250);
      expect(new RobotsGate({ userAgent: UA, overrideIntervalMs: 5 }).overrideIntervalMs).toBe(5);
      process.env.ROBOTS_OVERRIDE_INTERVAL_MS = 'soon';
      expect(() => new RobotsGate({ userAgent: UA })).toThrow(/ROBOTS_OVERRIDE_INTERVAL_MS/);
    } finally {
      if (before === undefined) delete process.env.ROBOTS_OVERRIDE_INTERVAL_MS;
      else process.env.ROBOTS_OVERRIDE_INTERVAL_MS = before;
    }
  });
});

describe('bad input', () => {
  it('a malformed URL rejects with a TypeError naming it; other schemes are refused clearly', async () => {
    const gate = newGate();
    await expect(gate.check('http//nope')).rejects.toThrow(TypeError);
    await expect(gate.check('http//nope')).rejects.toThrow(/http\/\/nope/);
    await expect(gate.check('ftp://b.test/file')).rejects.toThrow(UnsupportedSchemeError);
    await expect(gate.check('ftp://b.test/file')).rejects.toThrow(/only http: and https:/);
    expect(vh.log.length).toBeGreaterThanOrEqual(0);
  });

  it('normalises origins: case, default port, punycode', async () => {
    const gate = newGate();
    const d = await gate.check(`HTTP://B.TEST:${vh.port}/private#frag`);
    expect(d).toMatchObject({ origin: vh.origin('b.test'), url: `${vh.origin('b.test')}/private`, allowed: false });
  });

  it('an empty fragment is no fragment: the URL is decided as it is sent, an empty query kept', async () => {
    // URL.hash is '' for a lone `#`, as for none: `/x?#` is sent as `/x?`, which `Disallow: /*?` covers.
    const gate = newGate();
    const origin = vh.origin('query.test');
    for (const url of [`${origin}/x?#`, `${origin}/x?#f`, `HTTP://QUERY.TEST:${vh.port}/x?#`]) {
      expect(await gate.check(url), url).toMatchObject({ url: `${origin}/x?`, allowed: false, rule: { pattern: '/*?' } });
      expect(gate.peek(url), url).toMatchObject({ url: `${origin}/x?`, allowed: false });
    }
    expect(await gate.check(`${origin}/x#`)).toMatchObject({ url: `${origin}/x`, allowed: true });
  });
});

describe('caching and single flight', () => {
  it('1,000 concurrent checks on a cold origin make one robots.txt request', async () => {
    flight.state.delayMs = 50;
    const gate = newGate();
    const ds = await Promise.all(Array.from({ length: 1000 }, (_, i) => gate.check(`${vh.origin('flight.test')}/${i % 2 ? 'private/' : ''}p${i}`)));
    expect(vh.requests('flight.test', '/robots.txt').length).toBe(1);
    expect(ds.filter((d) => d.allowed).length).toBe(500);
    expect(new Set(ds.map((d) => d.policy)).size).toBe(1);
  });

  it('two gates on one store share the fetch', async () => {
    const store = new MemoryPolicyStore();
    const g1 = newGate({ store });
    const g2 = newGate({ store });
    const before = vh.requests('b.test', '/robots.txt').length;
    await Promise.all([g1.check(`${vh.origin('b.test')}/x`), g2.check(`${vh.origin('b.test')}/y`)]);
    await g2.check(`${vh.origin('b.test')}/z`);
    expect(vh.requests('b.test', '/robots.txt').length - before).toBe(1);
    await store.close();
  });

  it('stamps the policy: sitemaps, times, sha256; emits policy with the record', async () => {
    const gate = newGate({ maxAgeMs: 60_000 });
    const records: PolicyRecord[] = [];
    gate.on('policy', (r) => records.push(r));
    const d = await gate.check(`${vh.origin('b.test')}/x`);
    expect(d.policy.sitemaps).toEqual([`${vh.origin('b.test')}/sitemap.xml`]);
    expect(Date.parse(d.policy.expiresAt) - Date.parse(d.policy.fetchedAt)).toBe(60_000);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'parsed', body: 'User-agent: *\nDisallow: /private\nSitemap: /sitemap.xml\n', sha256: d.policy.sha256 });
  });

  it('Cache-Control max-age shortens the life of a copy (floored by minAgeMs)', async () => {
    cc.state.headers = { 'cache-control': 'public, max-age=1' };
    const gate = newGate({ minAgeMs: 0 });
    const d = await gate.check(`${vh.origin('cc.test')}/x`);
    expect(Date.parse(d.policy.expiresAt) - Date.parse(d.policy.fetchedAt)).toBe(1000);
    const floored = newGate({ minAgeMs: 5000 });
    const f = await floored.check(`${vh.origin('cc.test')}/x`);
    expect(Date.parse(f.policy.expiresAt) - Date.parse(f.policy.fetchedAt)).toBe(5000);
  });

  it('refetches after maxAgeMs, and keeps at most maxOrigins origins', async () => {
    const gate = newGate({ maxAgeMs: 400, maxOrigins: 2 });
    const n = () => vh.requests('c.test', '/robots.txt').length;
    const start = n();
    await gate.check(`${vh.origin('c.test')}/1`);
    await gate.check(`${vh.origin('c.test')}/2`);
    expect(n() - start).toBe(1);
    await sleep(450);
    await gate.check(`${vh.origin('c.test')}/3`);
    expect(n() - start).toBe(2);
    // Two other origins push c.test out of the cache: the next check fetches again.
    await gate.check(`${vh.origin('a.test')}/`);
    await gate.check(`${vh.origin('b.test')}/`);
    await gate.check(`${vh.origin('c.test')}/4`);
    expect(n() - start).toBe(3);
  });
});

describe('outages and changes', () => {
  it('an expired good copy is used, marked stale, while the refetch fails', async () => {
    const gate = newGate({ maxAgeMs: 100, minAgeMs: 0, retryMs: 5000 });
    const n = () => vh.requests('flaky.test', '/robots.txt').length;
    const fresh = await gate.check(`${vh.origin('flaky.test')}/private`);
    expect(fresh).toMatchObject({ allowed: false, stale: false });
    flaky.state.status = 503;
    await sleep(120);
    const stale = await gate.check(`${vh.origin('flaky.test')}/private`);
    const open = await gate.check(`${vh.origin('flaky.test')}/public`);
    expect(stale).toMatchObject({
      allowed: false,
      reason: 'disallowed-by-rule',
      stale: true,
      policy: { status: 200, refetchStatus: 503, sha256: fresh.policy.sha256 },
    });
    expect(open).toMatchObject({ allowed: true, stale: true });
    expect(n()).toBe(2);
    flaky.state.status = 200;
    await gate.refresh(vh.origin('flaky.test'));
    expect(await gate.check(`${vh.origin('flaky.test')}/private`)).toMatchObject({ allowed: false, stale: false });
    expect(n()).toBe(3);
  });

  it('failed fetches are retried with a doubling backoff, not on every check', async () => {
    const gate = newGate({ retryMs: 200 });
    const n = () => vh.requests('flaky.test', '/robots.txt').length;
    const start = n();
    flaky.state.status = 500;
    try {
      await gate.check(`${vh.origin('flaky.test')}/a`); // 1st failure: retry after 200 ms
      await gate.check(`${vh.origin('flaky.test')}/b`);
      expect(n() - start).toBe(1);
      await sleep(260);
      expect(await gate.check(`${vh.origin('flaky.test')}/c`)).toMatchObject({ allowed: false, reason: 'unreachable', stale: false });
      expect(n() - start).toBe(2); // 2nd failure: retry after 400 ms
      await sleep(200);
      await gate.check(`${vh.origin('flaky.test')}/d`);
      expect(n() - start).toBe(2);
      await sleep(260);
      await gate.check(`${vh.origin('flaky.test')}/e`);
      expect(n() - start).toBe(3);
    } finally {
      flaky.state.status = 200;
    }
  });

  it('a changed body publishes policy-change (event and diagnostics channel) on refresh()', async () => {
    const gate = newGate();
    const events: PolicyChange[] = [];
    const published: unknown[] = [];
    const onPublish = (m: unknown) => published.push(m);
    diagnostics_channel.subscribe('robots-gate:policy-change', onPublish);
    try {
      gate.on('policy-change', (c) => events.push(c));
      const before = await gate.check(`${vh.origin('changing.test')}/private`);
      await gate.refresh(vh.origin('changing.test'));
      expect(events).toHaveLength(0); // same body, no change
      changing.state.body = 'User-agent: *\nDisallow: /other\n';
      await gate.refresh(`${vh.origin('changing.test')}/any/url`);
      const after = await gate.check(`${vh.origin('changing.test')}/private`);
      expect(after.allowed).toBe(true);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ origin: vh.origin('changing.test'), oldSha256: before.policy.sha256, newSha256: after.policy.sha256, oldStatus: 200, newStatus: 200 });
      expect(published).toEqual(events);
      expect(vh.requests('changing.test', '/robots.txt').length).toBe(3);
    } finally {
      diagnostics_channel.unsubscribe('robots-gate:policy-change', onPublish);
    }
  });

  it('checks made while refresh() runs wait for it: none is decided on the copy being replaced', async () => {
    const gate = newGate();
    const url = `${vh.origin('changing.test')}/other`;
    try {
      changing.state.body = 'User-agent: *\nDisallow: /private\n';
      expect((await gate.check(url)).allowed).toBe(true);
      changing.state.body = 'User-agent: *\nDisallow: /other\n';
      changing.state.delayMs = 300;
      const refreshed = gate.refresh(vh.origin('changing.test'));
      await sleep(50);
      expect(gate.peek(url)).toBeUndefined();
      const during = await gate.check(url);
      await refreshed;
      expect(during.allowed).toBe(false);
      expect(during.rule?.pattern).toBe('/other');
      expect(gate.peek(url)?.allowed).toBe(false);
    } finally {
      changing.state.delayMs = 0;
      changing.state.body = 'User-agent: *\nDisallow: /private\n';
    }
  });

  it('a file that vanishes (4xx) keeps the last good policy by default, and says so', async () => {
    const gate = newGate({ retryMs: 50 });
    const events: PolicyChange[] = [];
    gate.on('policy-change', (c) => events.push(c));
    const good = await gate.check(`${vh.origin('vanish.test')}/private`);
    vanish.state.status = 404;
    await gate.refresh(vh.origin('vanish.test'));
    const kept = await gate.check(`${vh.origin('vanish.test')}/private`);
    expect(kept).toMatchObject({ allowed: false, stale: true, policy: { sha256: good.policy.sha256, refetchStatus: 404 } });
    expect(events).toEqual([expect.objectContaining({ oldSha256: good.policy.sha256, newSha256: null, newStatus: 404 })]);
    // Still gone: no second change.
    await gate.refresh(vh.origin('vanish.test'));
    expect(events).toHaveLength(1);
  });

  it("onVanished 'allow' opens the site when the file vanishes", async () => {
    const gate = newGate({ onVanished: 'allow' });
    await gate.check(`${vh.origin('vanish-allow.test')}/private`);
    vanishAllow.state.status = 410;
    await gate.refresh(vh.origin('vanish-allow.test'));
    expect(await gate.check(`${vh.origin('vanish-allow.test')}/private`)).toMatchObject({ allowed: true, reason: 'unavailable', stale: false });
  });
});

describe('observability', () => {
  it('publishes fetches and decisions on node:diagnostics_channel', async () => {
    const fetches: Array<{ origin: string; result: { status: unknown; kind: string } }> = [];
    const decisions: unknown[] = [];
    const onFetch = (m: unknown) => fetches.push(m as (typeof fetches)[number]);
    const onDecision = (m: unknown) => decisions.push(m);
    diagnostics_channel.subscribe('robots-gate:fetch', onFetch);
    diagnostics_channel.subscribe('robots-gate:decision', onDecision);
    try {
      const gate = newGate();
      const d1 = await gate.check(`${vh.origin('c.test')}/one`);
      const d2 = await gate.check(`${vh.origin('c.test')}/two`);
      expect(fetches.filter((f) => f.origin === vh.origin('c.test'))).toEqual([
        expect.objectContaining({ result: expect.objectContaining({ kind: 'unavailable', status: 404 }) }),
      ]);
      expect(decisions).toEqual([d1, d2]);
    } finally {
      diagnostics_channel.unsubscribe('robots-gate:fetch', onFetch);
      diagnostics_channel.unsubscribe('robots-gate:decision', onDecision);
    }
  });
});

describe('override', () => {
  it('lets a disallowed URL through, says so, and marks the host', async () => {
    const gate = newGate({ override: [`B.test:${vh.port}`], overrideIntervalMs: 50 });
    const hosts: string[] = [];
    gate.on('override', (h) => hosts.push(h));
    expect(gate.isUnderOverride('b.test')).toBe(false);
    const ok = await gate.check(`${vh.origin('b.test')}/public`);
    expect(ok).toMatchObject({ allowed: true, overridden: false });
    expect(gate.isUnderOverride('b.test')).toBe(false);
    const d = await gate.check(`${vh.origin('b.test')}/private`);
    expect(d).toMatchObject({ allowed: true, overridden: true, reason: 'overridden', rule: { type: 'disallow', pattern: '/private' } });
    expect(gate.isUnderOverride('b.test')).toBe(true);
    expect(gate.isUnderOverride('B.TEST')).toBe(true);
    expect(gate.isUnderOverride(new URL(vh.origin('b.test')).host)).toBe(true);
    await gate.check(`${vh.origin('b.test')}/private/2`);
    expect(hosts).toEqual(['b.test']);
    // Hosts not listed are not overridden.
    expect(await gate.check(`${vh.origin("a.test")}/only-us`)).toMatchObject({ allowed: false, overridden: false });
  });
});
