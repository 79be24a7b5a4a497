// gate.close() while requests wait for their host's slot: each gives up its wait with a
// GateClosedError (not undici's bare `TypeError: fetch failed`), and none of them is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { GateClosedError, MemoryRateLimiter, RobotsGate, createResolvingAgent } from '../../src/index.js';

const UA = 'CloseBot/1.0 (+https://bot.example/about)';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let vh: VirtualHosts;
beforeAll(async () => {
  const site = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    // A Crawl-delay far past the test's time limit: a queued request only ends early if close() ends it.
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 600\n');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${req.url}`);
  };
  vh = await startVirtualHosts({ 'queued.test': site, 'via.test': site, 'late.test': site, 'late-via.test': site });
});
afterAll(async () => {
  await vh?.close();
});

function gate(): RobotsGate {
  return new RobotsGate({ userAgent: UA, resolve: vh.resolve, jitter: 0, maxCrawlDelayMs: 3_600_000, limiter: new MemoryRateLimiter() });
}

describe('gate.close() with requests waiting for a slot', () => {
  it('rejects each queued gate.fetch with GateClosedError, and sends none of them', async () => {
    const g = gate();
    const base = vh.origin('queued.test');
    // robots.txt took the host's slot: every page after it waits out the Crawl-delay.
    const queued = [1, 2, 3].map((i) => g.fetch(`${base}/p${i}`).then(() => 'sent', (err: unknown) => err));
    await sleep(300); // let them reach the wait (a close before it must give the same answer)
    await g.close();
    const outcomes = await Promise.all(queued);
    for (const err of outcomes) {
      expect(err).toBeInstanceOf(GateClosedError);
      expect((err as GateClosedError).code).toBe('ERR_GATE_CLOSED');
      expect((err as Error).message).toMatch(/closed while this request waited/);
    }
    expect(vh.requests('queued.test').map((r) => r.path)).toEqual(['/robots.txt']);
  });

  it('ends an interceptor request waiting for its slot with GateClosedError', async () => {
    const g = gate();
    const agent = createResolvingAgent(vh.resolve).compose(g.interceptor());
    try {
      const waiting = request(`${vh.origin('via.test')}/page`, { dispatcher: agent }).then(() => 'sent', (err: unknown) => err);
      await sleep(300);
      await g.close();
      const err = await waiting;
      expect(err).toBeInstanceOf(GateClosedError);
      expect(vh.requests('via.test').map((r) => r.path)).toEqual(['/robots.txt']);
    } finally {
      await agent.close();
    }
  });
});

// A call made after close() never waited: its error says it was refused, not that a close came
// during a wait it never had.
describe('calls made after gate.close()', () => {
  const refused = /^the RobotsGate is closed: this request was made after gate\.close\(\) and was not sent$/;

  it('gate.fetch and gate.check reject with GateClosedError saying the gate is closed, and send nothing', async () => {
    const g = gate();
    await g.close();
    const base = vh.origin('late.test');
    for (const call of [() => g.fetch(`${base}/a`), () => g.check(`${base}/b`)]) {
      const err = await call().then(() => 'resolved', (e: unknown) => e);
      expect(err).toBeInstanceOf(GateClosedError);
      expect((err as GateClosedError).code).toBe('ERR_GATE_CLOSED');
      expect((err as Error).message).toMatch(refused);
    }
    expect(vh.requests('late.test')).toEqual([]);
  });

  it('an interceptor request made after close rejects the same way', async () => {
    const g = gate();
    const agent = createResolvingAgent(vh.resolve).compose(g.interceptor());
    try {
      await g.close();
      const err = await request(`${vh.origin('late-via.test')}/page`, { dispatcher: agent }).then(() => 'sent', (e: unknown) => e);
      expect(err).toBeInstanceOf(GateClosedError);
      expect((err as Error).message).toMatch(refused);
      expect(vh.requests('late-via.test')).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
