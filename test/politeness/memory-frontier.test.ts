import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/politeness/memory-frontier.js';
import { TimerHeap } from '../../src/politeness/timer-heap.js';
import type { TakeResult, TakenItem } from '../../src/politeness/types.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import type { AcquireResult, Lease } from '../../src/stores/types.js';

const items = (host: string, n: number) => Array.from({ length: n }, (_, i) => ({ url: `http://${host}/${i}`, host }));
const leaseOf = (r: AcquireResult): Lease => {
  if (!r.ok) throw new Error(`expected a lease, got ${JSON.stringify(r)}`);
  return r.lease;
};
const taken = (r: TakeResult): TakenItem => {
  if (r.kind !== 'item') throw new Error(`expected an item, got ${JSON.stringify(r)}`);
  return r;
};

describe('MemoryFrontier', () => {
  it('adds idempotently and serves one host FIFO, one request in flight at a time', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0 });
    expect(await f.add(items('a', 3))).toBe(3);
    expect(await f.add(items('a', 3))).toBe(0);
    const first = taken(await f.take(0));
    expect(first.item.url).toBe('http://a/0');
    expect(first.intervalMs).toBeNull();
    // a is in flight: nothing else may go to it.
    expect(await f.take(0)).toEqual({ kind: 'wait', retryAt: null });
    await f.complete(first, 50);
    // Next slot: 100 ms after the response ENDED (50), not after it started.
    expect(await f.take(149)).toEqual({ kind: 'wait', retryAt: 150 });
    const second = taken(await f.take(150));
    expect(second.item.url).toBe('http://a/1');
    expect(second.intervalMs).toBe(100);
    expect(second.waitReason).toBe('floor');
  });

  it('interval is the largest of crawl-delay, floor with jitter, and override', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0.2, random: () => 0.5, overrideIntervalMs: 1000 });
    await f.add(items('a', 4));
    let t = taken(await f.take(0));
    await f.complete(t, 0);
    t = taken(await f.take(110)); // floor 100 × 1.1
    expect(t.intervalMs).toBe(110);
    await f.setHostPolicy('a', { crawlDelaySeconds: 0.5 });
    await f.complete(t, 200);
    expect(await f.take(699)).toEqual({ kind: 'wait', retryAt: 700 });
    t = taken(await f.take(700));
    expect([t.intervalMs, t.waitReason]).toEqual([500, 'crawl-delay']);
    await f.setHostPolicy('a', { crawlDelaySeconds: 0.5, underOverride: true });
    await f.complete(t, 700);
    expect(await f.take(1699)).toEqual({ kind: 'wait', retryAt: 1700 });
    t = taken(await f.take(1700));
    expect([t.intervalMs, t.waitReason]).toEqual([1000, 'override']);
  });

  it('a policy learned while the host waits reschedules it', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0 });
    await f.add(items('a', 2));
    await f.complete(taken(await f.take(0)), 0);
    expect(await f.take(0)).toEqual({ kind: 'wait', retryAt: 100 });
    await f.setHostPolicy('a', { crawlDelaySeconds: 2 });
    expect(await f.take(100)).toEqual({ kind: 'wait', retryAt: 2000 });
  });

  it('global concurrency bounds requests in flight over all hosts', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 0, concurrency: 2 });
    await f.add([...items('a', 1), ...items('b', 1), ...items('c', 1)]);
    const a = taken(await f.take(0));
    const b = taken(await f.take(0));
    expect(await f.take(0)).toEqual({ kind: 'wait', retryAt: null });
    await f.complete(a, 1);
    const c = taken(await f.take(1));
    expect(new Set([a.item.host, b.item.host, c.item.host]).size).toBe(3);
  });

  it('serves hosts in order of their next allowed time', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0, concurrency: 10 });
    await f.add([...items('a', 2), ...items('b', 2)]);
    const a = taken(await f.take(0));
    const b = taken(await f.take(0));
    await f.complete(b, 10);
    await f.complete(a, 50);
    expect(taken(await f.take(200)).item.host).toBe('b');
    expect(taken(await f.take(200)).item.host).toBe('a');
  });

  it('Retry-After back-off delays the host and a retried URL comes back first with attempt + 1', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0 });
    await f.add(items('a', 2));
    const t = taken(await f.take(0));
    await f.fail(t, 10, { retry: true, notBefore: 5000 });
    expect(await f.take(1000)).toEqual({ kind: 'wait', retryAt: 5000 });
    const again = taken(await f.take(5000));
    expect(again.item).toEqual({ url: 'http://a/0', host: 'a', attempt: 2 });
    expect(again.waitReason).toBe('backoff');
  });

  it('a requeued URL comes back first with the same attempt, once its hold ends; other hosts go meanwhile', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0, concurrency: 1 });
    await f.add([...items('cd', 2), ...items('ok', 1)]);
    const first = taken(await f.take(0));
    expect(first.item.host).toBe('cd');
    await f.fail(first, 10, { notSent: true, requeue: true, holdUntil: 5000 });
    expect(await f.counts(10)).toMatchObject({ queued: 3, inFlight: 0, done: 0 });
    const ok = taken(await f.take(20));
    expect(ok.item.host).toBe('ok');
    await f.complete(ok, 30);
    expect(await f.take(30)).toEqual({ kind: 'wait', retryAt: 5000 });
    const again = taken(await f.take(5000));
    // Untried: the same attempt, and the hold is no interval (nothing was sent to the host).
    expect([again.item, again.intervalMs, again.waitReason]).toEqual([{ url: 'http://cd/0', host: 'cd', attempt: 1 }, null, null]);
    // A retried URL handed back keeps its attempt too.
    await f.fail(again, 5100, { retry: true, notBefore: 6000 });
    const retry = taken(await f.take(6000));
    await f.fail(retry, 6000, { notSent: true, requeue: true, holdUntil: 7000 });
    expect(taken(await f.take(7000)).item.attempt).toBe(2);
  });

  it("an earlier run's hold (seedHost) keeps the host out of take until it ends, with its reason; other hosts go first", async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0, concurrency: 1 });
    f.seedHost('held', 1000, 100, { until: 9000, reason: 'backoff' });
    f.seedHost('slow', 1000, 100, { until: 5000, reason: 'crawl-delay' });
    await f.add([...items('held', 1), ...items('slow', 1), ...items('ok', 2)]);
    // The one slot goes to the open host, not to one that would wait its hold out holding it.
    const ok = taken(await f.take(2000));
    expect(ok.item.host).toBe('ok');
    await f.complete(ok, 2000);
    expect((await f.counts(2050)).hostsWaiting).toBe(3);
    const ok2 = taken(await f.take(2100));
    expect(ok2.item.host).toBe('ok');
    await f.complete(ok2, 2200);
    expect(await f.take(2200)).toEqual({ kind: 'wait', retryAt: 5000 });
    // A later end (this run's sitemap request) does not shorten the hold.
    f.seedHost('held', 3000, 100);
    const slow = taken(await f.take(5000));
    expect([slow.item.host, slow.intervalMs, slow.waitReason]).toEqual(['slow', 4000, 'crawl-delay']);
  });

  it("a seeded hold's reason gives way to a back-off of this run", async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0 });
    f.seedHost('a', 0, 100, { until: 500, reason: 'crawl-delay' });
    await f.add(items('a', 2));
    const first = taken(await f.take(500));
    expect(first.waitReason).toBe('crawl-delay');
    await f.fail(first, 600, { retry: true, notBefore: 5000 });
    const again = taken(await f.take(5000));
    expect([again.intervalMs, again.waitReason]).toEqual([4400, 'backoff']);
  });

  it('a refusal (nothing sent) costs the host no interval', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0 });
    await f.add(items('a', 3));
    await f.complete(taken(await f.take(0)), 0);
    const blocked = taken(await f.take(100));
    await f.complete(blocked, 150, { notSent: true });
    expect(taken(await f.take(150)).item.url).toBe('http://a/2');
  });

  it('pending and remove, counts, drained', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0 });
    await f.add(items('a', 4));
    const t = taken(await f.take(0));
    expect((await f.pending('a')).map((p) => p.url)).toEqual(['http://a/1', 'http://a/2', 'http://a/3']);
    expect(await f.remove('a', ['http://a/2', 'http://a/3', 'http://zzz'])).toBe(2);
    expect(await f.counts(0)).toEqual({ queued: 1, inFlight: 1, done: 2, hosts: 1, hostsWaiting: 0 });
    await f.complete(t, 0);
    expect((await f.counts(0)).hostsWaiting).toBe(1);
    expect(await f.isDrained()).toBe(false);
    await f.complete(taken(await f.take(100)), 100);
    expect(await f.isDrained()).toBe(true);
    expect(await f.take(1000)).toEqual({ kind: 'drained' });
  });

  it('holds no record for a finished host once its interval has run out, and keeps the interval until then', () => {
    const f = new MemoryFrontier({ minIntervalMs: 100, jitter: 0, concurrency: 1_000 });
    const hosts = Array.from({ length: 1_000 }, (_, i) => `h${i}.test`);
    for (const h of hosts) f.addSync(items(h, 2));
    let now = 0;
    for (let round = 0; round < 2; round++) {
      const out: TakenItem[] = [];
      for (let r = f.takeSync(now); r.kind === 'item'; r = f.takeSync(now)) out.push(r);
      expect(out).toHaveLength(1_000);
      for (const t of out) f.release(t, now, undefined, false);
      now += 100;
    }
    // Every host done; their intervals (100 ms from the last end, at 100) have not run out yet.
    expect(f.takeSync(150)).toEqual({ kind: 'drained' });
    expect(f.hostsHeld).toBe(1_000);
    // A redirect into a finished host within its interval still waits for it.
    f.addSync([{ url: 'http://h7.test/late', host: 'h7.test' }]);
    expect(f.takeSync(150)).toEqual({ kind: 'wait', retryAt: 200 });
    expect(taken(f.takeSync(200)).intervalMs).toBe(100);
    expect(f.hostsHeld).toBe(1);
  });

  it('a stale or doubled release is ignored', async () => {
    const f = new MemoryFrontier({ minIntervalMs: 0 });
    await f.add(items('a', 2));
    const t = taken(await f.take(0));
    await f.complete(t, 0);
    await f.complete(t, 0);
    expect((await f.counts(0)).done).toBe(1);
  });

  it('never breaks a host interval or runs two requests on a host, whatever the schedule (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ host: fc.constantFrom('a', 'b', 'c', 'd'), dur: fc.integer({ min: 0, max: 50 }) }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        async (reqs, concurrency) => {
          const f = new MemoryFrontier({ minIntervalMs: 30, jitter: 0.2, concurrency });
          f.addSync(reqs.map((r, i) => ({ url: `http://${r.host}/${i}`, host: r.host })));
          const dur = new Map(reqs.map((r, i) => [`http://${r.host}/${i}`, r.dur]));
          const running: { t: TakenItem; end: number }[] = [];
          const lastEnd = new Map<string, number>();
          let now = 0;
          let served = 0;
          for (let steps = 0; steps < 10_000; steps++) {
            const r = f.takeSync(now);
            if (r.kind === 'drained') break;
            if (r.kind === 'item') {
              expect(running.some((x) => x.t.item.host === r.item.host)).toBe(false);
              expect(running.length).toBeLessThan(concurrency);
              const prev = lastEnd.get(r.item.host);
              if (prev !== undefined) expect(now - prev).toBeGreaterThanOrEqual(30);
              running.push({ t: r, end: now + dur.get(r.item.url)! });
              served++;
              continue;
            }
            // Advance time to the next event: a completion or the retry time.
            running.sort((x, y) => x.end - y.end);
            const next = Math.min(running[0]?.end ?? Infinity, r.retryAt ?? Infinity);
            expect(Number.isFinite(next)).toBe(true);
            now = Math.max(now, next);
            while (running.length && running[0]!.end <= now) {
              const x = running.shift()!;
              f.release(x.t, x.end, undefined, false);
              lastEnd.set(x.t.item.host, x.end);
            }
          }
          expect(served).toBe(reqs.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('TimerHeap', () => {
  it('pops in time order (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }), (times) => {
        const h = new TimerHeap();
        times.forEach((t, i) => h.push(t, `h${i}`, i));
        const out: number[] = [];
        while (h.size) {
          out.push(h.peekTime()!);
          h.pop();
        }
        expect(out).toEqual([...times].sort((a, b) => a - b));
      }),
    );
  });
});

describe('MemoryRateLimiter', () => {
  it('one lease per host; the interval runs from the release; Retry-After pushes it later', async () => {
    let now = 1000;
    const l = new MemoryRateLimiter(() => now);
    const a = await l.tryAcquire('a', 100, 10_000);
    expect(a.ok).toBe(true);
    expect(await l.tryAcquire('a', 100, 10_000)).toEqual({ ok: false, retryAt: 1100 });
    expect((await l.tryAcquire('b', 100, 10_000)).ok).toBe(true);
    now = 1050;
    await l.release(leaseOf(a), 1050);
    expect(await l.tryAcquire('a', 100, 10_000)).toEqual({ ok: false, retryAt: 1150 });
    now = 1150;
    const a2 = await l.tryAcquire('a', 100, 10_000);
    expect(a2.ok).toBe(true);
    await l.release(leaseOf(a2), 1150, 5000);
    now = 1300;
    expect(await l.tryAcquire('a', 100, 10_000)).toEqual({ ok: false, retryAt: 5000 });
  });

  it('drops a host whose last response is older than any interval asked for it (and 60 s)', () => {
    let now = 0;
    const l = new MemoryRateLimiter(() => now);
    for (let i = 0; i < 1_000; i++) l.releaseSync(leaseOf(l.tryAcquireSync(`h${i}.test`, 2_000, 120_000)), now);
    expect(l.hostsHeld).toBe(1_000);
    // 90 s on a 100 s Crawl-delay asked once: that host is kept and still spaced.
    l.releaseSync(leaseOf(l.tryAcquireSync('slow.test', 100_000, 120_000)), now);
    now = 90_000;
    for (let i = 0; i < 1_000; i++) l.releaseSync(leaseOf(l.tryAcquireSync(`new${i}.test`, 2_000, 120_000)), now);
    expect(l.hostsHeld).toBe(1_001);
    expect(l.tryAcquireSync('slow.test', 100_000, 120_000)).toEqual({ ok: false, retryAt: 100_000 });
  });

  it('a lease never released expires, and the stale release is then ignored', async () => {
    let now = 0;
    const l = new MemoryRateLimiter(() => now);
    const a = await l.tryAcquire('a', 10, 500);
    now = 600;
    const b = await l.tryAcquire('a', 10, 500);
    expect(b.ok).toBe(true);
    await l.release(leaseOf(a), 600);
    now = 700;
    expect((await l.tryAcquire('a', 10, 500)).ok).toBe(false);
  });
});
