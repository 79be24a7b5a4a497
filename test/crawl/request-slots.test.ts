// --concurrency is requests in flight: the CLI's frontier holds twice as many URLs (so documents
// are saved and rows written while the next requests go out), and the job's request slots keep
// what reaches the servers at --concurrency, robots.txt requests included.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestSlots } from '../../src/crawl/request-slots.js';
import type { HostHandler, LoggedRequest } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-request-slots-');

/** Most requests open at once at the servers, from each request's arrival to its response's end. */
function mostInFlight(log: readonly LoggedRequest[]): number {
  const edges = log.flatMap((r) => [[r.startedAt, 1] as const, [r.endedAt ?? Infinity, -1] as const]);
  // An end and a start at the same ms: the end first (the two did not overlap).
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}

const slow: HostHandler = (req, res) => {
  setTimeout(() => {
    if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    else res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${req.url}</p>`);
  }, 30);
};

describe('robots-gate crawl --concurrency', () => {
  it('keeps the requests at the servers, robots.txt ones included, at --concurrency, and uses them all', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `s${i}.test`);
    const v = await hosts(Object.fromEntries(names.map((h) => [h, slow])));
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, names.flatMap((h) => [1, 2, 3].map((k) => `${v.origin(h)}/p${k}`)).join('\n') + '\n');
    const r = await runCli(['crawl', list, '--user-agent', 'SlotBot/1.0', '--out', path.join(dir, 'out'), '--min-interval', '0', '--concurrency', '3', ...resolveArgs(v)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fetched\s+36/);
    expect(v.log).toHaveLength(48);
    expect(mostInFlight(v.log)).toBe(3);
  });
});

describe('RequestSlots', () => {
  it('gives slots at once up to its size, then in the order asked, and none to a latecomer ahead of a waiter', async () => {
    const slots = new RequestSlots(2);
    expect(slots.tryTake()).toBe(true);
    expect(slots.tryTake()).toBe(true);
    expect(slots.tryTake()).toBe(false);
    const order: string[] = [];
    const a = slots.take().then(() => order.push('a'));
    const b = slots.take().then(() => order.push('b'));
    slots.give();
    // The freed slot went to `a`: a caller trying now does not jump the queue.
    expect(slots.tryTake()).toBe(false);
    await a;
    slots.give();
    await b;
    expect(order).toEqual(['a', 'b']);
    slots.give();
    slots.give();
    expect(slots.tryTake()).toBe(true);
    expect(() => new RequestSlots(0)).toThrow(RangeError);
  });
});
