// `robots-gate check` with URLs on many origins: their robots.txt files are fetched at once (up to a
// bound), not one after another, and the answers still come out in input order.
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { CHECK_ORIGINS_AT_ONCE } from '../../src/cli/check.js';
import { crawlFixture } from './crawl-fixture.js';
import { runCli } from './run-cli.js';

const fx = crawlFixture('rg-check-origins-');
const ROBOTS = 'User-agent: *\nDisallow: /private\n';

/** Hosts h0.test… whose robots.txt requests wait in `held` (while their client waits) until
 *  `release(held, seen)` answers them; `stats.maxHeld` is the most in flight at once. */
function heldHosts(n: number, release: (held: http.ServerResponse[], seen: number) => void) {
  const held: http.ServerResponse[] = [];
  let seen = 0;
  const stats = { maxHeld: 0 };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url !== '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page');
    seen++;
    held.push(res);
    // A request the client gave up on (its --timeout) is no longer in flight.
    res.once('close', () => {
      const i = held.indexOf(res);
      if (i >= 0) held.splice(i, 1);
    });
    stats.maxHeld = Math.max(stats.maxHeld, held.length);
    release(held, seen);
  };
  const answer = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
  const map = Object.fromEntries(Array.from({ length: n }, (_, i) => [`h${i}.test`, handler]));
  return { map, stats, answer };
}

describe('robots-gate check on many origins', () => {
  it('fetches the origins at once: hosts that answer only when all have been asked are all decided', async () => {
    // Each robots.txt is answered only once every host has asked for its own: one after another,
    // the first would wait out its --timeout and be decided as unreachable.
    const n = 5;
    const h = heldHosts(n, (held, seen) => {
      if (seen === n) for (const res of held.splice(0)) h.answer(res);
    });
    const v = await fx.hosts(h.map);
    // Two URLs of h0 (one fetch between them), input order mixed across hosts.
    const urls = [`${v.origin('h0.test')}/private/a`, ...[1, 2, 3, 4].map((i) => `${v.origin(`h${i}.test`)}/p${i}`), `${v.origin('h0.test')}/open`];
    const r = await runCli(['check', ...urls, '--user-agent', 'TestBot/1.0', '--timeout', '3000', '--json', ...fx.resolveArgs(v)], { timeoutMs: 40_000 });
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((d) => [d.url, d.reason])).toEqual([
      [urls[0], 'disallowed-by-rule'],
      ...urls.slice(1, 5).map((u) => [u, 'no-matching-rule']),
      [urls[5], 'no-matching-rule'],
    ]);
    expect(r.code).toBe(1);
    expect(v.requests('h0.test', '/robots.txt')).toHaveLength(1);
  }, 45_000);

  it(`asks at most ${CHECK_ORIGINS_AT_ONCE} origins at once`, async () => {
    // The first CHECK_ORIGINS_AT_ONCE robots.txt requests are held for half a second once they are
    // all in: an unbounded check would have asked the other hosts meanwhile. Then everything is
    // answered, and every host is decided by its file. (No timeout is raced: a loaded machine can
    // only make the bounded check look more bounded, never fail it.)
    const n = CHECK_ORIGINS_AT_ONCE + 4;
    let released = false;
    const h = heldHosts(n, (held) => {
      if (released) return void held.splice(0).forEach((res) => h.answer(res));
      if (held.length === CHECK_ORIGINS_AT_ONCE) {
        setTimeout(() => {
          released = true;
          for (const res of held.splice(0)) h.answer(res);
        }, 500);
      }
    });
    const v = await fx.hosts(h.map);
    const urls = Array.from({ length: n }, (_, i) => `${v.origin(`h${i}.test`)}/x`);
    const r = await runCli(['check', ...urls, '--user-agent', 'TestBot/1.0', '--timeout', '20000', '--json', ...fx.resolveArgs(v)], { timeoutMs: 40_000 });
    expect(h.stats.maxHeld).toBe(CHECK_ORIGINS_AT_ONCE);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((d) => [d.url, d.reason])).toEqual(urls.map((u) => [u, 'no-matching-rule']));
    expect(r.code).toBe(0);
  }, 45_000);
});
