// A robots.txt that redirects into another origin's /robots.txt brings that origin's own file: the
// target is not asked for it again, and an older copy the gate holds gives way to it (its change
// published), as a refresh through the redirect learns first. A hop into an origin whose copy is
// fresh, or being loaded, is answered from that copy: the file is asked for once, and never sooner
// after the host's last request than the Crawl-delay it asks for.
import { afterEach, describe, expect, it } from 'vitest';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsGate, type PolicyChange } from '../../src/index.js';

const UA = 'RedirBot/1.0 (+https://bot.example/about)';
let vh: VirtualHosts | undefined;
afterEach(async () => {
  await vh?.close();
  vh = undefined;
});

describe('the target of a cross-origin robots.txt redirect', () => {
  it('takes the newer file the redirect brought, publishes the change, and is not fetched again', async () => {
    let file = 'User-agent: *\nDisallow: /old\n';
    vh = await startVirtualHosts({
      'from.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(301, { location: `${vh!.origin('to.test')}/robots.txt` }).end();
        res.writeHead(200).end('page');
      },
      'to.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(file);
        res.writeHead(200).end('page');
      },
    });
    const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 0, jitter: 0 });
    const changes: PolicyChange[] = [];
    gate.on('policy-change', (c) => changes.push(c));
    try {
      expect((await gate.check(`${vh.origin('to.test')}/old`)).allowed).toBe(false);
      file = 'User-agent: *\nDisallow: /new\n';
      // from.test's refresh goes through to.test's file, which has changed since to.test's copy.
      await gate.refresh(vh.origin('from.test'));
      expect((await gate.check(`${vh.origin('from.test')}/new`)).allowed).toBe(false);
      const now = gate.peek(`${vh.origin('to.test')}/new`);
      expect(now).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', policy: { robotsUrl: `${vh.origin('to.test')}/robots.txt` } });
      expect(gate.peek(`${vh.origin('to.test')}/old`)?.allowed).toBe(true);
      expect(changes.map((c) => c.origin)).toContain(vh.origin('to.test'));
      // to.test/robots.txt: its own first fetch, then from.test's hop; nothing more.
      expect(vh.requests('to.test', '/robots.txt')).toHaveLength(2);
    } finally {
      await gate.close();
    }
  });

  for (const first of ['from.test', 'to.test'] as const) {
    it(`answers the hop from the copy it holds or is loading (${first} asked first): one request, spaced by the Crawl-delay`, async () => {
      vh = await startVirtualHosts({
        'from.test': (req, res) => {
          if (req.url === '/robots.txt') return void res.writeHead(301, { location: `${vh!.origin('to.test')}/robots.txt` }).end();
          res.writeHead(200).end('page');
        },
        'to.test': (req, res) => {
          if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\nDisallow: /no\n');
          res.writeHead(200).end('page');
        },
      });
      const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 100, jitter: 0 });
      try {
        const [a, b] = first === 'from.test' ? [vh.origin('from.test'), vh.origin('to.test')] : [vh.origin('to.test'), vh.origin('from.test')];
        const checks = [gate.check(`${a}/no`)];
        // The second check starts while the first one's robots.txt is under way.
        await new Promise((r) => setTimeout(r, 1));
        checks.push(gate.check(`${b}/no`));
        const [da, db] = await Promise.all(checks);
        for (const d of [da!, db!]) expect(d).toMatchObject({ allowed: false, crawlDelaySeconds: 1, policy: { finalUrl: `${vh.origin('to.test')}/robots.txt` } });
        expect(da!.policy.sha256).toBe(db!.policy.sha256);
        const res = await gate.fetch(`${vh.origin('to.test')}/page`);
        await res.text();
        const seen = vh.requests('to.test');
        expect(seen.map((r) => r.path)).toEqual(['/robots.txt', '/page']);
        expect(seen[1]!.startedAt - seen[0]!.endedAt!).toBeGreaterThanOrEqual(1000);
      } finally {
        await gate.close();
      }
    });
  }

  it('two robots.txt that redirect into each other, asked at once, do not wait on each other', async () => {
    vh = await startVirtualHosts({
      'one.test': (req, res) => void res.writeHead(301, { location: `${vh!.origin('two.test')}/robots.txt` }).end(),
      'two.test': (req, res) => void res.writeHead(301, { location: `${vh!.origin('one.test')}/robots.txt` }).end(),
    });
    const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 0, jitter: 0 });
    try {
      const both = await Promise.all([gate.check(`${vh.origin('one.test')}/x`), gate.check(`${vh.origin('two.test')}/x`)]);
      for (const d of both) expect(d).toMatchObject({ allowed: true, reason: 'too-many-redirects' });
    } finally {
      await gate.close();
    }
  });

  it("waiting for the target's load under way is not counted against the redirecting file's time limit", async () => {
    let served = 0;
    vh = await startVirtualHosts({
      'src.test': (req, res) => void res.writeHead(301, { location: `${vh!.origin('dst.test')}/robots.txt` }).end(),
      'dst.test': (req, res) => {
        // The refresh is answered 503: its copy goes stale, and the hop is then sent after all.
        if (req.url === '/robots.txt' && ++served === 2) return void res.writeHead(503, { 'retry-after': '0' }).end();
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /no\n');
        setTimeout(() => res.writeHead(200).end('slow page'), 800);
      },
    });
    const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 0, jitter: 0, timeoutMs: 300 });
    try {
      await gate.check(`${vh.origin('dst.test')}/x`);
      // The slow page holds dst.test's slot; a refresh of its file waits for it, and src.test's hop waits for that.
      const page = gate.fetch(`${vh.origin('dst.test')}/slow`).then((r) => r.text());
      await new Promise((r) => setTimeout(r, 50));
      const refreshing = gate.refresh(vh.origin('dst.test'));
      await new Promise((r) => setTimeout(r, 10));
      expect(await gate.check(`${vh.origin('src.test')}/no`)).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
      await Promise.all([page, refreshing]);
    } finally {
      await gate.close();
    }
  });
});
