// The fleet's frontier: every worker of a run takes its URLs from one set of Redis keys.
//
// Under `<prefix>run:<run>:` (R):
//   seen        SET   every URL ever added to the run: adding is idempotent, so each worker may
//                     add the whole input list and whichever comes first enqueues it
//   q:<host>    LIST  the host's queued URLs, FIFO
//   att         HASH  url -> attempt, for URLs put back to be retried
//   ready       ZSET  host -> when it may next be sent (ms, Redis clock): hosts are served in
//                     this order; a host in flight is not in it
//   hp:<host>   HASH  cd (Crawl-delay, ms), ov (1 while under override), jf (jitter factor of the
//                     current gap), hold (a requeue's hold, ms Redis clock: see
//                     FailOptions.holdUntil)
//   leases      ZSET  token -> when the lease lapses (ms, Redis clock)
//   leased      HASH  token -> the taken item as JSON
//   counts      HASH  queued, inflight, done
//   via         HASH  redirect target url -> its parent and depth as JSON (noteRedirect): its
//                     size is how many redirect targets the run has queued
// and the host's politeness state is the rate limiter's own hash `<prefix>lim:<host>` (see
// stores/redis-rate-limiter.ts): a URL's lease and its host's lease are one token with one
// expiry, so a RedisRateLimiter user and the frontier keep the same interval for a host. The
// requests a worker sends under a lease (the robots.txt request its check makes, then the page)
// take no second slot: they ask the limiter `within` the lease's token, and each one's end
// moves the host's `ended`, which a notSent release leaves as it is.
//
// Each operation is one Lua script, so it is atomic fleet-wide, and idempotent on its token so
// that a command resent after a lost connection does nothing twice. Times inside the scripts
// come from Redis `TIME`; the workers' clocks only ever send durations.
//
// A worker renews its leases every leaseMs / 3 while it holds them. A worker that dies stops
// renewing; after leaseMs its URLs go back to the head of their hosts' queues (the next `take`
// by anyone puts them back) and the host's interval counts from the lease's end. A URL whose
// request was on the wire when its worker died may thus be fetched twice: at-least-once for
// crashes, exactly once otherwise.
//
// Needs one Redis server (not Cluster): the scripts reach keys derived from their arguments.
import { randomUUID } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import type {
  FailOptions,
  Frontier,
  FrontierCounts,
  FrontierItem,
  FrontierOptions,
  HostPolicy,
  RedirectVia,
  ReleaseOptions,
  TakeResult,
  TakenItem,
  WaitReason,
} from '../politeness/types.js';
import type { RedisConnection } from '../stores/redis-connection.js';
import { defineFrontierScripts, type FrontierScripts } from './redis-frontier-scripts.js';

/** Published on `robots-gate:frontier` when a lease was found lapsed at release: its URL went
 *  back to the queue and may be fetched again elsewhere. */
export interface FrontierLeaseLostEvent {
  readonly url: string;
  readonly host: string;
  readonly worker: string;
}
const frontierChannel = channel('robots-gate:frontier');

/** The run's state vanished from Redis while this worker was part of it. */
export class FleetStateLostError extends Error {
  readonly code = 'ERR_FLEET_STATE_LOST';
  constructor(readonly url: string) {
    super(
      `the run's queue is gone from Redis at ${url} (restarted without persistence, flushed or evicted?): ` +
        'URLs not yet crawled were lost from the shared frontier; run again with --resume to finish from the audit',
    );
    this.name = 'FleetStateLostError';
  }
}

interface StoredItem {
  url: string;
  host: string;
  attempt: number;
  worker: string;
  iv?: number;
  why?: WaitReason;
}

export interface RedisFrontierOptions extends FrontierOptions {
  /** The run's name: workers with the same name (and prefix) share one frontier. Without it
   *  the frontier lives at `<prefix>frontier:` (a prefix of its own per run, then). */
  readonly run?: string;
  /** This worker's name, recorded with its leases. Default: a random one. */
  readonly worker?: string;
  /** Key prefix, the same as the stores' (the host hashes are the rate limiter's). Default
   *  `robots-gate:`. */
  readonly prefix?: string;
  /** A lease not renewed for this long is void and its URL goes back (ms). Leases are renewed
   *  every third of it while held. Default: env ROBOTS_GATE_FLEET_LEASE_MS, else 15,000 (not
   *  FrontierOptions' 120,000: renewal keeps long requests leased, and a dead worker's URLs
   *  come back sooner). Keep it longer than the Redis outages to ride out: a lease that lapses
   *  while Redis is away lets another worker fetch its URL again. */
  readonly leaseMs?: number;
  /** Longest pause between two looks when everything queued is in flight elsewhere (ms).
   *  Default 100. */
  readonly pollMs?: number;
}

const BATCH = 500;

function leaseFromEnv(): number | undefined {
  const raw = process.env.ROBOTS_GATE_FLEET_LEASE_MS;
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new RangeError(`ROBOTS_GATE_FLEET_LEASE_MS must be a number of ms, got ${JSON.stringify(raw)}`);
  return n;
}

/** Build a RedisFrontier on a connection from `createRedisStores` (its `connection`). */
export function createRedisFrontier(connection: RedisConnection, options: RedisFrontierOptions = {}): RedisFrontier {
  return new RedisFrontier(connection, options);
}

/**
 * A `Frontier` shared by every worker that uses the same Redis, prefix and run name. `add` is
 * idempotent fleet-wide; each URL is taken by exactly one worker at a time; hosts are served in
 * order of their next allowed time; `take` answers `drained` once nothing is queued or in flight
 * anywhere. `concurrency` limits this worker's own requests in flight. While Redis is away every
 * call waits and retries (see RedisConnection): nothing is taken, so nothing is sent.
 */
export class RedisFrontier implements Frontier {
  /** A take's lease is the RedisRateLimiter's lease on the host (the same hash). */
  readonly limiterLeases = true;
  get minIntervalMs(): number {
    return this.floorMs;
  }
  private readonly R: string;
  private readonly L: string;
  private readonly worker: string;
  private readonly floorMs: number;
  private readonly overrideMs: number;
  private readonly jitter: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly keepMs = 3_600_000;
  private readonly random: () => number;
  private readonly scripts: FrontierScripts;
  /** Leases held by this worker: token -> item. */
  private readonly held = new Map<string, TakenItem>();
  private readonly renewer: NodeJS.Timeout;
  private renewing = false;
  private closed = false;
  /** This worker added URLs to the run, so the run must exist in Redis from then on. */
  private joined = false;

  constructor(
    private readonly conn: RedisConnection,
    options: RedisFrontierOptions,
  ) {
    const prefix = options.prefix ?? 'robots-gate:';
    this.R = options.run ? `${prefix}run:${options.run}:` : `${prefix}frontier:`;
    this.L = prefix;
    this.worker = options.worker ?? randomUUID().slice(0, 8);
    this.floorMs = options.minIntervalMs ?? 2_000;
    this.overrideMs = options.overrideIntervalMs ?? 10_000;
    this.jitter = options.jitter ?? 0.2;
    this.concurrency = options.concurrency ?? 16;
    this.leaseMs = options.leaseMs ?? leaseFromEnv() ?? 15_000;
    if (!(this.leaseMs >= 30)) throw new RangeError(`leaseMs must be at least 30, got ${this.leaseMs}`);
    this.pollMs = options.pollMs ?? 100;
    this.random = options.random ?? Math.random;
    if (!(this.concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${options.concurrency}`);
    this.scripts = defineFrontierScripts(conn);
    this.renewer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.renewer.unref();
  }

  async add(items: readonly { url: string; host: string }[]): Promise<number> {
    let added = 0;
    for (let i = 0; i < items.length; i += BATCH) {
      const args: (string | number)[] = [this.R, this.L, this.floorMs, this.overrideMs];
      for (const { url, host } of items.slice(i, i + BATCH)) args.push(url, host.toLowerCase());
      added += await this.conn.run(() => this.scripts.rgFrAdd(...args));
    }
    if (items.length > 0) this.joined = true;
    return added;
  }

  /** `now` is ignored: the fleet's clock is Redis's. `retryAt` is in this process's clock.
   *  @throws FleetStateLostError when the run this worker joined has vanished from Redis. */
  async take(): Promise<TakeResult> {
    if (this.held.size >= this.concurrency) return { kind: 'wait', retryAt: null };
    const token = randomUUID();
    const args = [this.R, this.L, this.floorMs, this.overrideMs, token, this.leaseMs, this.pollMs, this.keepMs, this.worker, this.joined ? 1 : 0];
    const [kind, value] = await this.conn.run(() => this.scripts.rgFrTake(...args));
    const local = Date.now();
    if (kind === 'drained') return { kind: 'drained' };
    if (kind === 'gone') throw new FleetStateLostError(this.conn.url);
    if (kind === 'wait') return { kind: 'wait', retryAt: local + Number(value) };
    const s = JSON.parse(String(value)) as StoredItem;
    const taken: TakenItem = {
      item: { url: s.url, host: s.host, attempt: s.attempt },
      lease: { host: s.host, token, grantedAt: local },
      intervalMs: s.iv ?? null,
      waitReason: s.why ?? null,
    };
    this.held.set(token, taken);
    return { kind: 'item', ...taken };
  }

  async complete(taken: TakenItem, endedAt: number, options?: ReleaseOptions): Promise<void> {
    await this.release(taken, endedAt, options, 0);
  }

  async fail(taken: TakenItem, endedAt: number, options?: FailOptions): Promise<void> {
    await this.release(taken, endedAt, options, options?.retry === true ? 1 : options?.requeue === true ? 2 : 0);
  }

  /** @param back 0: done; 1: retry (attempt + 1); 2: requeue (the same attempt). */
  private async release(taken: TakenItem, endedAt: number, options: FailOptions | undefined, back: 0 | 1 | 2): Promise<void> {
    const token = taken.lease.token;
    // Durations, fixed once so that a retried release means the same thing.
    const now = Date.now();
    const ageMs = Math.floor(Math.max(0, now - endedAt));
    const backoffMs = options?.notBefore === undefined ? -1 : Math.max(0, Math.ceil(options.notBefore - now));
    const jf = 1 + this.random() * this.jitter;
    const holdMs = options?.holdUntil === undefined ? -1 : Math.max(0, Math.ceil(options.holdUntil - now));
    const args = [
      this.R,
      this.L,
      this.floorMs,
      this.overrideMs,
      token,
      ageMs,
      backoffMs,
      back,
      jf,
      options?.notSent ? 1 : 0,
      this.keepMs,
      holdMs,
    ];
    const held = this.held.has(token);
    const ok = await this.conn.run(() => this.scripts.rgFrRelease(...args));
    this.held.delete(token);
    // 0 on a resend of a release that did take effect is harmless; a lease that lapsed while
    // held is worth telling: its URL went back and may be fetched again.
    if (ok === 0 && held && frontierChannel.hasSubscribers) {
      frontierChannel.publish({ url: taken.item.url, host: taken.item.host, worker: this.worker } satisfies FrontierLeaseLostEvent);
    }
  }

  async setHostPolicy(host: string, policy: HostPolicy): Promise<void> {
    const cd = policy.crawlDelaySeconds === undefined ? '' : Math.ceil(policy.crawlDelaySeconds * 1000);
    const args = [this.R, this.L, this.floorMs, this.overrideMs, host.toLowerCase(), cd, policy.underOverride ? 1 : 0];
    await this.conn.run(() => this.scripts.rgFrPolicy(...args));
  }

  async pending(host: string): Promise<FrontierItem[]> {
    const h = host.toLowerCase();
    const [urls, attempts] = await this.conn.run(async (c) => {
      const urls = await c.lrange(`${this.R}q:${h}`, 0, -1);
      const attempts = urls.length ? await c.hmget(`${this.R}att`, ...urls) : [];
      return [urls, attempts] as const;
    });
    return urls.map((url, i) => ({ url, host: h, attempt: Number(attempts[i] ?? 1) }));
  }

  async noteRedirect(url: string, via: RedirectVia): Promise<boolean> {
    const set = await this.conn.run((c) => c.hsetnx(`${this.R}via`, url, JSON.stringify(via)));
    return set === 1;
  }

  async forgetRedirect(url: string): Promise<void> {
    await this.conn.run((c) => c.hdel(`${this.R}via`, url));
  }

  async redirectOf(url: string): Promise<RedirectVia | undefined> {
    const v = await this.conn.run((c) => c.hget(`${this.R}via`, url));
    if (v === null) return undefined;
    try {
      const o = JSON.parse(v) as RedirectVia;
      return typeof o.parent === 'string' && typeof o.depth === 'number' ? o : undefined;
    } catch {
      return undefined;
    }
  }

  async remove(host: string, urls: readonly string[]): Promise<number> {
    if (urls.length === 0) return 0;
    let removed = 0;
    for (let i = 0; i < urls.length; i += BATCH) {
      const args = [this.R, host.toLowerCase(), ...urls.slice(i, i + BATCH)];
      removed += await this.conn.run(() => this.scripts.rgFrRemove(...args));
    }
    return removed;
  }

  async counts(): Promise<FrontierCounts> {
    const now = Date.now();
    const [c, hosts, waiting, redirects] = await this.conn.run(async (r) => {
      const p = r.pipeline();
      p.hmget(`${this.R}counts`, 'queued', 'inflight', 'done');
      p.zcard(`${this.R}ready`);
      p.zcount(`${this.R}ready`, `(${now}`, '+inf');
      p.hlen(`${this.R}via`);
      const out = await p.exec();
      if (!out) throw new Error('pipeline aborted');
      for (const [err] of out) if (err) throw err;
      return out.map(([, v]) => v) as [(string | null)[], number, number, number];
    });
    return {
      queued: Math.max(0, Number(c[0] ?? 0)),
      inFlight: Math.max(0, Number(c[1] ?? 0)),
      done: Number(c[2] ?? 0),
      hosts,
      hostsWaiting: waiting,
      redirects,
    };
  }

  /** True once nothing is queued and nothing is in flight anywhere in the fleet. */
  async isDrained(): Promise<boolean> {
    const c = await this.counts();
    return c.queued === 0 && c.inFlight === 0;
  }

  /** Stop renewing. Leases still held lapse after leaseMs and go back to the others. The
   *  connection is shared and closed by its owner. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.renewer);
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.closed || this.held.size === 0) return;
    this.renewing = true;
    try {
      const args = [this.R, this.L, this.leaseMs, this.keepMs, ...this.held.keys()];
      await this.conn.run(() => this.scripts.rgFrRenew(...args));
    } catch {
      // Closed under us: nothing left to renew.
    } finally {
      this.renewing = false;
    }
  }
}
