// The crawl's own request path (HttpTransport with the crawl's dispatcher, a decided URL in its
// host's slot), at its edges: what it sends is what was decided, a 1xx head is not the response,
// and the time limit holds before a connection exists.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/crawl/http-transport.js';
import { createResolvingAgent } from '../../src/fetcher/resolving-agent.js';
import { RobotsGate } from '../../src/gate/gate.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({
    'q.test': site('User-agent: *\nDisallow: /ok/q$\n'),
    'hints.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
      res.writeEarlyHints({ link: '</a.css>; rel=preload' });
      // /then-ok answers after its 103; /then-close never does.
      if (req.url === '/then-ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      setTimeout(() => req.socket.destroy(), 50);
    },
    'cred.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
      res.writeHead(301, { location: `http://user:secret@q.test:${v.port}/x` }).end();
    },
  });
});
afterAll(() => v.close());

/** A crawl's transport over `dispatcher`, and a gate that decides over the loopback hosts. */
function crawlTransport(dispatcher = createResolvingAgent(v.resolve), timeoutMs = 5_000) {
  const gate = new RobotsGate({ userAgent: 'EdgeBot/1.0', resolve: v.resolve, minIntervalMs: 0 });
  const transport = new HttpTransport({ gate, dispatcher, followRedirects: false, userAgent: gate.userAgent, timeoutMs });
  const fetch = async (url: string) => transport.fetch(url, { decision: await gate.check(url), slotHeld: true });
  // destroy(), not close(): close() waits for a request still queued on a connection never made.
  return { gate, fetch, close: () => Promise.all([gate.close(), dispatcher.destroy()]) };
}

describe('the crawl transport', () => {
  it('sends the path and query it was decided for, an empty query included', async () => {
    const t = crawlTransport();
    try {
      const url = `${v.origin('q.test')}/ok/q?`;
      // `Disallow: /ok/q$` does not match `/ok/q?`: allowed, and so `/ok/q?` is what must be sent.
      expect((await t.gate.check(url)).allowed).toBe(true);
      expect((await t.gate.check(`${v.origin('q.test')}/ok/q`)).allowed).toBe(false);
      const r = await t.fetch(url);
      expect(r.hops[0]!.status).toBe(200);
      expect(v.requests('q.test').map((q) => q.path)).toEqual(['/robots.txt', '/ok/q?']);
    } finally {
      await t.close();
    }
  });

  it('a 103 Early Hints head is not the response: a later 200 is, and none at all is an error without a status', async () => {
    const t = crawlTransport();
    try {
      const ok = await t.fetch(`${v.origin('hints.test')}/then-ok`);
      expect(ok.hops[0]).toMatchObject({ status: 200, error: null });
      expect(Buffer.from(ok.body).toString()).toBe('ok');
      const cut = await t.fetch(`${v.origin('hints.test')}/then-close`);
      expect(cut.hops[0]!.status).toBeNull();
      expect(cut.hops[0]!.headers).toEqual({});
      expect(cut.hops[0]!.error).not.toBeNull();
      expect(cut.truncated).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('the time limit holds while the connection is still being made', async () => {
    // A dispatcher whose connections never complete (a host that never accepts): undici starts a
    // request only once connected, and gives up connecting after its own 10 s.
    const hanging = new Agent({ connect: () => {} });
    const t = crawlTransport(hanging, 300);
    try {
      const t0 = performance.now();
      const r = await t.fetch(`${v.origin('q.test')}/page`);
      const took = performance.now() - t0;
      expect(r.hops[0]).toMatchObject({ status: null, error: { code: 'ETIMEDOUT' } });
      expect(took).toBeLessThan(5_000);
      expect(v.requests('q.test', '/page')).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('a Location with user:password@ reaches neither the hop nor its recorded headers', async () => {
    const t = crawlTransport();
    try {
      const r = await t.fetch(`${v.origin('cred.test')}/go`);
      expect(r.hops[0]!.status).toBe(301);
      expect(JSON.stringify(r)).not.toContain('secret');
      expect(r.redirectTo).toBe(`http://***@q.test:${v.port}/x`);
      expect(r.hops[0]!.headers.location).toBe(`http://***@q.test:${v.port}/x`);
    } finally {
      await t.close();
    }
  });
});
