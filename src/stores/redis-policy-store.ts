// Policy records shared by a fleet, with one robots.txt load per origin at a time fleet-wide.
//
// Keys (under the prefix, and under `run:<run>:` too when the store is given a run name and
// not `sharePolicies`: each run fetches its own robots.txt files, at its own run time):
//   policy:<origin>   hash: `json` the PolicyRecord, `f` its fetchedAt, `e` its expiresAt (the
//                     two times apart so scripts need not decode a large body); lives until
//                     expiresAt plus `retainStaleMs`, so
//                     that an expired copy is still there for the gate to use as stale while a
//                     refetch fails (RFC 9309 §2.4)
//   lock:<origin>     the loader's token, SET NX PX leaseMs: a loader that dies frees the origin
//                     when its lease lapses
//   override          set of hosts under override, fleet-wide (`run:<run>:override` when the
//                     store is given a run name: marks last for that run only, and the set
//                     expires `retainStaleMs` after the last mark)
// Channel `<prefix>policy-ready` (with the run's part too, as the keys) carries the origin whenever a record is stored, to wake
// waiters at once; they also poll, so a lost message only costs a poll interval.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PolicyRecord, PolicyStore, RateLimiter } from './types.js';
import type { RedisConnection } from './redis-connection.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

// KEYS: record, lock. ARGV: token, leaseMs, sinceMs, nowMs (caller's clock).
// A record fetched since `sinceMs` and not yet expired is the answer a waiter wants: {'record', json}.
// Otherwise take the lock ({'lock'}), or report how long it is still held ({'wait', pttl}).
const ACQUIRE = `
local r = redis.call('HMGET', KEYS[1], 'f', 'e')
if r[1] and tonumber(r[1]) >= tonumber(ARGV[3]) and tonumber(r[2]) > tonumber(ARGV[4]) then
  return {'record', redis.call('HGET', KEYS[1], 'json')}
end
local holder = redis.call('GET', KEYS[2])
if holder == ARGV[1] then return {'lock'} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'lock'} end
return {'wait', tostring(redis.call('PTTL', KEYS[2]))}
`;

// KEYS: record, lock. ARGV: json, ttlMs, token, channel, origin, fetchedAt, expiresAt. Store
// the record, drop the lock if still ours, wake the waiters.
const STORE = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'f', ARGV[6], 'e', ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`;

// KEYS: lock. ARGV: token, channel, origin. Give up the lock (the load failed) and wake waiters
// so that one of them takes over now rather than at the lease's end.
const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1
`;

/** The scripts as ioredis commands (defineCommand adds them at run time). */
interface PolicyScripts {
  rgPolAcquire(record: string, lock: string, token: string, leaseMs: number, sinceMs: number, nowMs: number): Promise<[string, string?]>;
  rgPolStore(
    record: string,
    lock: string,
    json: string,
    ttlMs: number,
    token: string,
    channel: string,
    origin: string,
    fetchedAt: number,
    expiresAt: number,
  ): Promise<number>;
  rgPolUnlock(lock: string, token: string, channel: string, origin: string): Promise<number>;
}

export interface RedisPolicyStoreOptions {
  /** Key prefix. Default `robots-gate:`. */
  prefix?: string;
  /** How long a record is kept after its expiresAt (ms), to serve as a stale copy while
   *  refetches fail (RFC 9309 §2.4). Default 24 h. */
  retainStaleMs?: number;
  /** Longest wait between two looks at a held lock (ms). Default 200. */
  pollMs?: number;
  /** A run name: robots.txt records, load locks and override marks are kept for this run only
   *  (keys under `<prefix>run:<run>:`), so a new run fetches each origin's robots.txt at its own
   *  run time, through its own connection settings, never using a copy an earlier run fetched.
   *  Each key expires (records `retainStaleMs` after their expiresAt), so old runs do not pile up.
   *  Without a run name, records are shared by everyone on the prefix. */
  run?: string;
  /** With `run`: share robots.txt records with every run on this prefix after all (they live
   *  under `<prefix>policy:`); override marks stay per run. Default false. */
  sharePolicies?: boolean;
  /** The fleet's per-host limiter, handed to a gate given this store and no `limiter`. Default:
   *  a RedisRateLimiter on the same connection and prefix. */
  limiter?: RateLimiter;
}

/**
 * `PolicyStore` shared by every worker on the same Redis and prefix. Records are stored as
 * JSON with their own expiresAt (ms since epoch, set by the gate): every worker applies the
 * same expiry. `singleFlight` runs `load` in one worker at a time per origin; the others wait
 * for its record. Errors: none of its own; while Redis is unreachable calls wait and retry.
 */
export class RedisPolicyStore implements PolicyStore {
  private readonly prefix: string;
  /** Where records, locks and the channel live: the run's part of the prefix, unless shared. */
  private readonly policyPrefix: string;
  /** A run's override set expires this long after its last mark (ms); a prefix-wide one never. */
  private readonly overrideTtlMs: number | undefined;
  private readonly retainStaleMs: number;
  private readonly pollMs: number;
  private readonly channel: string;
  private readonly overrideKey: string;
  /** Loads in flight in this process, so local callers share one round of waiting. */
  private readonly flights = new Map<string, Promise<PolicyRecord>>();
  /** Local waiters woken by the channel, per origin. */
  private readonly wakers = new Map<string, Set<() => void>>();
  private subscriber: Redis | undefined;
  private subscribed: Promise<void> | undefined;
  /** Hosts known to be under override: a mark is never lifted during a run. */
  private readonly overridden = new Set<string>();
  private readonly scripts: PolicyScripts;
  /** Each host's slot, fleet-wide: a gate given this store and no `limiter` takes it. */
  readonly limiter: RateLimiter;

  constructor(
    private readonly conn: RedisConnection,
    options: RedisPolicyStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'robots-gate:';
    this.retainStaleMs = options.retainStaleMs ?? 86_400_000;
    this.pollMs = options.pollMs ?? 200;
    const runPrefix = options.run ? `${this.prefix}run:${options.run}:` : this.prefix;
    this.policyPrefix = options.sharePolicies ? this.prefix : runPrefix;
    this.channel = `${this.policyPrefix}policy-ready`;
    this.overrideKey = `${runPrefix}override`;
    this.overrideTtlMs = options.run ? this.retainStaleMs : undefined;
    conn.client.defineCommand('rgPolAcquire', { numberOfKeys: 2, lua: ACQUIRE });
    conn.client.defineCommand('rgPolStore', { numberOfKeys: 2, lua: STORE });
    conn.client.defineCommand('rgPolUnlock', { numberOfKeys: 1, lua: UNLOCK });
    this.scripts = conn.client as unknown as PolicyScripts;
    this.limiter = options.limiter ?? new RedisRateLimiter(conn, { prefix: this.prefix });
  }

  private recordKey(origin: string): string {
    return `${this.policyPrefix}policy:${origin}`;
  }
  private lockKey(origin: string): string {
    return `${this.policyPrefix}lock:${origin}`;
  }

  async get(origin: string): Promise<PolicyRecord | undefined> {
    const json = await this.conn.run((c) => c.hget(this.recordKey(origin), 'json'));
    return json === null ? undefined : (JSON.parse(json) as PolicyRecord);
  }

  async set(record: PolicyRecord): Promise<void> {
    await this.store(record, '');
  }

  private async store(record: PolicyRecord, token: string): Promise<void> {
    const ttl = Math.max(1, Math.ceil(record.expiresAt - Date.now()) + this.retainStaleMs);
    const json = JSON.stringify(record);
    await this.conn.run(() =>
      this.scripts.rgPolStore(
        this.recordKey(record.origin),
        this.lockKey(record.origin),
        json,
        ttl,
        token,
        this.channel,
        record.origin,
        record.fetchedAt,
        record.expiresAt,
      ),
    );
  }

  /**
   * Load `origin`'s policy once fleet-wide. If another worker holds the lock, wait for its
   * record; if its lease (`leaseMs`) lapses first, take over and load here. A record stored
   * by someone else after this call began (and not expired) is returned without loading.
   * Rejects with `load`'s error if the load here fails (the lock is freed at once).
   */
  singleFlight(origin: string, load: () => Promise<PolicyRecord>, leaseMs: number): Promise<PolicyRecord> {
    const inFlight = this.flights.get(origin);
    if (inFlight) return inFlight;
    const flight = this.fly(origin, load, leaseMs).finally(() => this.flights.delete(origin));
    this.flights.set(origin, flight);
    return flight;
  }

  private async fly(origin: string, load: () => Promise<PolicyRecord>, leaseMs: number): Promise<PolicyRecord> {
    const token = randomUUID();
    const lease = Math.max(1, Math.ceil(leaseMs));
    // A load elsewhere that finished while our caller was deciding to call us counts too:
    // it began at most one lease before now.
    const since = Date.now() - lease;
    await this.subscribe();
    for (;;) {
      const [what, value] = await this.conn.run(() =>
        this.scripts.rgPolAcquire(this.recordKey(origin), this.lockKey(origin), token, lease, since, Date.now()),
      );
      if (what === 'record') return JSON.parse(value!) as PolicyRecord;
      if (what === 'lock') {
        let record: PolicyRecord;
        try {
          record = await load();
        } catch (err) {
          await this.conn.run(() => this.scripts.rgPolUnlock(this.lockKey(origin), token, this.channel, origin));
          throw err;
        }
        await this.store(record, token);
        return record;
      }
      const pttl = Number(value);
      await this.waitFor(origin, pttl > 0 ? Math.min(pttl, this.pollMs) : this.pollMs);
    }
  }

  private subscribe(): Promise<void> {
    if (!this.subscribed) {
      // ioredis re-subscribes by itself after a reconnect, but leaves that command's promise
      // without a handler: closed before Redis answered (a run ending just after Redis came back),
      // it rejected unhandled and killed the process. Re-subscribed here instead, handled.
      const subscriber = (this.subscriber = this.conn.duplicate({ autoResubscribe: false }));
      let readies = 0;
      subscriber.on('ready', () => {
        if (readies++ > 0) subscriber.subscribe(this.channel).catch(() => {});
      });
      subscriber.on('message', (_channel: string, origin: string) => {
        const set = this.wakers.get(origin);
        if (set) for (const wake of set) wake();
      });
      // A failed subscribe only loses the early wake-up; polling still finds the record.
      this.subscribed = this.subscriber.subscribe(this.channel).then(
        () => undefined,
        () => undefined,
      );
    }
    return this.subscribed;
  }

  private waitFor(origin: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.wakers.get(origin);
      if (!set) this.wakers.set(origin, (set = new Set()));
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0) this.wakers.delete(origin);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }

  async markOverride(host: string): Promise<void> {
    const h = host.toLowerCase();
    this.overridden.add(h);
    const ttl = this.overrideTtlMs;
    await this.conn.run(async (c) => {
      if (ttl === undefined) await c.sadd(this.overrideKey, h);
      else await c.multi().sadd(this.overrideKey, h).pexpire(this.overrideKey, ttl).exec();
      return true;
    });
  }

  async isUnderOverride(host: string): Promise<boolean> {
    const h = host.toLowerCase();
    if (this.overridden.has(h)) return true;
    const yes = (await this.conn.run((c) => c.sismember(this.overrideKey, h))) === 1;
    if (yes) this.overridden.add(h);
    return yes;
  }

  /** The connection is shared; `createRedisStores().close()` closes it. */
  async close(): Promise<void> {}
}
