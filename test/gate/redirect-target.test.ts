// A robots.txt that redirects into another origin's /robots.txt brings that origin's own file: the
// target is not asked for it again, and an older copy the gate holds gives way to it (its change
// published), as a --recheck-after refetch through the redirect learns first.
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
      // from.test's first fetch goes through to.test's file, which has changed since to.test's copy.
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
});
