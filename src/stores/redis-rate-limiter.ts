// The fleet-wide per-host politeness lease, as two atomic Lua scripts over one hash per host.
//
// Hash `<prefix>lim:<host>` fields:
//   token     the holder's lease token while a request is in flight
//   until     when that lease lapses if never released (its worker died)        ms, Redis clock
//   granted   when it was granted                                              ms, Redis clock
//   ended     when the last response from the host ended                      ms, Redis clock
//   nb        not before: Retry-After back-off                                  ms, Redis clock
//   iv        the interval the last lease was granted under, raised by the requests under it
//             (ms): what its holder knew. The next request waits at least this after 'ended'
//             (see RateLimiter); it also sizes the key's expiry
//   sub       the token of a request in flight under the lease in flight (a fleet frontier's
//             take sends robots.txt and the page under one lease: see `within`)
//   subuntil  when that request stops counting if never released                   ms, Redis clock
//
// All times come from Redis `TIME`, never from the workers' clocks, so workers on machines
// whose clocks disagree still keep one host's interval. A worker's own times cross the wire
// only as durations (how long ago its response ended, how long to back off), which do not
// depend on where its clock stands.
import { randomUUID } from 'node:crypto';
import type { AcquireOptions, AcquireResult, Lease, RateLimiter } from './types.js';
import type { RedisConnection } from './redis-connection.js';

// KEYS[1] host hash. ARGV: token, intervalMs, leaseMs, keepMs, within (the lease token the
// caller holds, '' none), endOnly (1: the lease sends nothing, see AcquireOptions). Returns
// {1, grantedAt} or {0, waitMs} or {0, waitMs, heldIntervalMs} (see AcquireResult).
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 'token', 'until', 'granted', 'ended', 'nb', 'sub', 'subuntil', 'iv')
local token, untilAt = h[1], tonumber(h[2])
local ended, nb = tonumber(h[4]) or 0, tonumber(h[5]) or 0
local interval, held, endOnly = tonumber(ARGV[2]), tonumber(h[8]) or 0, ARGV[6] == '1'
-- The gap after the last end: this caller's interval and the last holder's (what it knew).
-- A lease that sends nothing waits none.
local gap = interval
if endOnly then gap = 0 elseif held > gap then gap = held end
local poll = math.max(gap, interval, 25)
-- Not before 'ready': with the remembered interval when it, longer than the one asked for, is
-- what sets 'ready' (not the back-off), so the waiter can say what held it.
local function refused(ready)
  if gap > interval and ended > 0 and ended + gap >= nb then return {0, ready - now, gap} end
  return {0, ready - now}
end
if token and token == ARGV[5] and untilAt and untilAt > now then
  -- One more request under the caller's own live lease: no second slot (it would wait for the
  -- very lease its caller holds), but one at a time and spaced like any other.
  if h[6] then
    if h[6] == ARGV[1] then return {1, now} end
    local subUntil = tonumber(h[7]) or 0
    if subUntil > now then return {0, math.min(subUntil - now, poll)} end
    -- Its sender died mid-request: count the end of its time as the response's end.
    if subUntil > ended then ended = subUntil end
  end
  local ready = ended + gap
  if nb > ready then ready = nb end
  if ready > now then return refused(ready) end
  redis.call('HSET', KEYS[1], 'sub', ARGV[1], 'subuntil', now + tonumber(ARGV[3]))
  if ended > 0 then redis.call('HSET', KEYS[1], 'ended', ended) end
  -- The same holder, which may know more now (the page after its robots.txt): the largest.
  if not endOnly and interval > held then
    redis.call('HSET', KEYS[1], 'iv', interval)
    -- Kept while it constrains: should the lease lapse, its end plus this interval.
    local need = untilAt - now + interval + tonumber(ARGV[4])
    if redis.call('PTTL', KEYS[1]) < need then redis.call('PEXPIRE', KEYS[1], need) end
  end
  return {1, now}
end
if token then
  -- The same acquire sent twice (a resend after a lost answer): hand back the same lease.
  if token == ARGV[1] then return {1, tonumber(h[3])} end
  -- In flight elsewhere: the next grant is at least an interval after its release, which is
  -- at least 'now', so polling again after one interval (or the lease's end) is never late.
  if untilAt > now then return {0, math.min(untilAt - now, poll)} end
  -- The holder died mid-request: count its lease's end as the response's end.
  if untilAt > ended then ended = untilAt end
  redis.call('HDEL', KEYS[1], 'token', 'until', 'granted', 'sub', 'subuntil')
  redis.call('HSET', KEYS[1], 'ended', ended)
end
local ready = ended + gap
if nb > ready then ready = nb end
if ready > now then return refused(ready) end
local leaseMs = tonumber(ARGV[3])
redis.call('HDEL', KEYS[1], 'sub', 'subuntil')
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'until', now + leaseMs, 'granted', now)
-- The new holder's knowledge replaces the last one's, whose gap has passed; a lease that
-- sends nothing knows nothing and leaves it.
if endOnly then interval = held else redis.call('HSET', KEYS[1], 'iv', interval) end
redis.call('PEXPIRE', KEYS[1], leaseMs + interval + tonumber(ARGV[4]))
return {1, now}
`;

// KEYS[1] host hash. ARGV: token, ageMs (how long ago the response ended, by the worker's
// clock), backoffMs (-1: none), keepMs. Returns 1 if released, 0 if the lease was no longer ours.
const RELEASE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 'token', 'granted', 'iv', 'nb', 'sub', 'ended')
local under = h[1] ~= ARGV[1]
if under and h[5] ~= ARGV[1] then return 0 end
-- The worker measured 'age' before sending this script, so 'now - age' is no earlier than the
-- true end in Redis's clock: the interval is never measured from before the response ended.
local ended = now - math.max(0, tonumber(ARGV[2]))
local granted = tonumber(h[2]) or 0
if ended < granted then ended = granted end
-- Never earlier than an end already known (a request under this lease that ended later).
local known = tonumber(h[6]) or 0
if ended < known then ended = known end
local nb = tonumber(h[4]) or 0
local backoff = tonumber(ARGV[3])
if backoff >= 0 and now + backoff > nb then nb = now + backoff end
redis.call('HSET', KEYS[1], 'ended', ended, 'nb', nb)
if under then
  -- A request under a lease that stays held: the key lives as long as that lease does.
  redis.call('HDEL', KEYS[1], 'sub', 'subuntil')
  return 1
end
redis.call('HDEL', KEYS[1], 'token', 'until', 'granted', 'sub', 'subuntil')
local keep = math.max(ended + (tonumber(h[3]) or 0), nb) - now + tonumber(ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.max(1, keep))
return 1
`;

/** The scripts as ioredis commands (defineCommand adds them at run time). */
interface LimiterScripts {
  rgLimAcquire(key: string, token: string, intervalMs: number, leaseMs: number, keepMs: number, within: string, endOnly: number): Promise<[number, number, number?]>;
  rgLimRelease(key: string, token: string, ageMs: number, backoffMs: number, keepMs: number): Promise<number>;
}

export interface RedisRateLimiterOptions {
  /** Key prefix, e.g. `robots-gate:myrun:`. Default `robots-gate:`. */
  prefix?: string;
  /** How long a host's state outlives its interval (ms), so that a later, longer interval
   *  (a Crawl-delay learned since) still counts from the real last response. Default 1 h. */
  keepMs?: number;
}

/**
 * `RateLimiter` shared by every worker connected to the same Redis with the same prefix.
 * A host is granted only when no lease on it is live anywhere and max(`intervalMs`, the
 * interval the last lease was granted under) has passed since the last response ended (and
 * any Retry-After back-off): see RateLimiter. `Lease.grantedAt` and the
 * `retryAt` of a refusal are in this process's clock (ms since epoch), translated from
 * Redis's clock by the round trip.
 *
 * While Redis is unreachable, `tryAcquire` and `release` wait (retrying with backoff) rather
 * than fail: no lease is ever granted locally.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly prefix: string;
  private readonly keepMs: number;
  private readonly scripts: LimiterScripts;

  constructor(
    private readonly conn: RedisConnection,
    options: RedisRateLimiterOptions = {},
  ) {
    this.prefix = options.prefix ?? 'robots-gate:';
    this.keepMs = options.keepMs ?? 3_600_000;
    conn.client.defineCommand('rgLimAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    conn.client.defineCommand('rgLimRelease', { numberOfKeys: 1, lua: RELEASE });
    this.scripts = conn.client as unknown as LimiterScripts;
  }

  private key(host: string): string {
    return `${this.prefix}lim:${host.toLowerCase()}`;
  }

  /** @param intervalMs gap after the previous response's end (ms). @param leaseMs lease life if
   *  never released (ms). @param within a lease on the host the caller holds (see RateLimiter).
   *  @param options `endOnly`: the lease sends nothing (see AcquireOptions). */
  async tryAcquire(host: string, intervalMs: number, leaseMs: number, within?: Lease, options?: AcquireOptions): Promise<AcquireResult> {
    if (!(intervalMs >= 0) || !(leaseMs > 0)) {
      throw new RangeError(`intervalMs must be >= 0 and leaseMs > 0 (got ${intervalMs}, ${leaseMs})`);
    }
    // One token for all retries of this call: a retry after a lost answer gets the same lease.
    const token = randomUUID();
    const key = this.key(host);
    const iv = Math.ceil(intervalMs);
    const ls = Math.ceil(leaseMs);
    const [ok, value, held] = await this.conn.run(() => this.scripts.rgLimAcquire(key, token, iv, ls, this.keepMs, within?.token ?? '', options?.endOnly === true ? 1 : 0));
    const local = Date.now();
    if (ok === 1) {
      return { ok: true, lease: { host, token, grantedAt: local } };
    }
    // `value` is a duration from Redis's now, which came before `local`: waiting it from
    // `local` is never too early.
    return held !== undefined ? { ok: false, retryAt: local + value, heldIntervalMs: held } : { ok: false, retryAt: local + value };
  }

  /**
   * @param endedAt when the response ended (ms since epoch, this process's clock).
   * @param notBefore no new lease on the host before this (ms since epoch, this clock).
   */
  async release(lease: Lease, endedAt: number, notBefore?: number): Promise<void> {
    const key = this.key(lease.host);
    // Durations, computed once so a retried release means the same thing.
    const now = Date.now();
    const ageMs = Math.max(0, now - endedAt);
    const backoffMs = notBefore === undefined ? -1 : Math.max(0, Math.ceil(notBefore - now));
    // The answer is ignored: 0 means the lease lapsed and the host already moved on.
    await this.conn.run(() => this.scripts.rgLimRelease(key, lease.token, Math.floor(ageMs), backoffMs, this.keepMs));
  }

  /** The connection is shared; `createRedisStores().close()` closes it. */
  async close(): Promise<void> {}
}
