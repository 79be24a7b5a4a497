// The default RateLimiter: per-host leases in this process's memory. A fleet uses the Redis one,
// which keeps the same promise across processes.
import type { AcquireOptions, AcquireResult, Lease, RateLimiter } from './types.js';

interface HostSlot {
  /** Token of the lease in flight, if any. */
  token: string | undefined;
  /** When the lease in flight stops counting (its holder is presumed dead), ms since epoch. */
  leaseExpiresAt: number;
  /** When the previous response ended, ms since epoch (undefined before the first). */
  lastEndedAt: number | undefined;
  /** Retry-After back-off, ms since epoch. */
  notBefore: number;
  /** Token of a request in flight under the lease in flight (see `within`), if any. */
  sub: string | undefined;
  /** When that request stops counting, ms since epoch. */
  subExpiresAt: number;
  /** The largest interval asked for the host (ms): its record is kept at least that long after
   *  its last response. */
  maxIntervalMs: number;
  /** The interval (ms) the last lease was granted under, raised by the requests under it: what
   *  its holder knew of the host. The next request waits at least this after the last end. */
  heldIntervalMs: number;
}

/** A host's record is kept at least this long (ms) after its last response, whatever interval it
 *  was asked for: a longer one learned later (an override, a Crawl-delay up to the crawl's
 *  60 s maximum) still counts from that response. */
export const KEEP_IDLE_MS = 60_000;
/** Records looked at, from the oldest release, per acquire: dropping costs no sweep. */
const DROP_PER_CALL = 4;

/** Not before `readyAt`: with the remembered interval when it, longer than the one asked for, is
 *  what sets `readyAt` (not the back-off), so the waiter can say what held it. */
function refused(slot: HostSlot, intervalMs: number, gapMs: number, readyAt: number): AcquireResult {
  if (gapMs > intervalMs && slot.lastEndedAt !== undefined && slot.lastEndedAt + gapMs >= slot.notBefore) {
    return { ok: false, retryAt: readyAt, heldIntervalMs: gapMs };
  }
  return { ok: false, retryAt: readyAt };
}

/** Per-host politeness leases held in memory. `now` is injectable for tests. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly slots = new Map<string, HostSlot>();
  private tokens = 0;
  private readonly prefix = `${process.pid}-`;

  constructor(private readonly now: () => number = Date.now) {}

  async tryAcquire(host: string, intervalMs: number, leaseMs: number, within?: Lease, options?: AcquireOptions): Promise<AcquireResult> {
    return this.tryAcquireSync(host, intervalMs, leaseMs, within, options);
  }

  /** `tryAcquire` without the promise: a warm request on an open slot pays no extra tick. */
  tryAcquireSync(host: string, intervalMs: number, leaseMs: number, within?: Lease, options?: AcquireOptions): AcquireResult {
    const endOnly = options?.endOnly === true;
    const now = this.now();
    this.dropIdle(now);
    let slot = this.slots.get(host);
    if (!slot) {
      slot = { token: undefined, leaseExpiresAt: 0, lastEndedAt: undefined, notBefore: 0, sub: undefined, subExpiresAt: 0, maxIntervalMs: 0, heldIntervalMs: 0 };
      this.slots.set(host, slot);
    }
    if (intervalMs > slot.maxIntervalMs) slot.maxIntervalMs = intervalMs;
    // What this request waits after the last end: its own interval and the last holder's.
    const gapMs = endOnly ? 0 : Math.max(intervalMs, slot.heldIntervalMs);
    if (within !== undefined && slot.token === within.token && now < slot.leaseExpiresAt) return this.under(slot, host, intervalMs, gapMs, leaseMs, now, endOnly);
    if (slot.token !== undefined) {
      if (now < slot.leaseExpiresAt) {
        // In flight: the earliest the host can open is the gap after a release that has not
        // happened yet (at least the holder's interval), so now + gap is a safe lower bound.
        return { ok: false, retryAt: Math.min(now + Math.max(gapMs, intervalMs, 1), slot.leaseExpiresAt) };
      }
      // The holder never released: its request is presumed ended when the lease expired.
      slot.lastEndedAt = slot.leaseExpiresAt;
      slot.token = undefined;
      slot.sub = undefined;
    }
    const readyAt = Math.max(slot.lastEndedAt === undefined ? 0 : slot.lastEndedAt + gapMs, slot.notBefore);
    if (readyAt > now) return refused(slot, intervalMs, gapMs, readyAt);
    const token = this.prefix + ++this.tokens;
    slot.token = token;
    slot.leaseExpiresAt = now + leaseMs;
    // The new holder's knowledge replaces the last one's, whose gap has passed; a lease that
    // sends nothing (endOnly: a seed, an end moved) knows nothing and leaves it.
    if (!endOnly) slot.heldIntervalMs = intervalMs;
    return { ok: true, lease: { host, token, grantedAt: now } };
  }

  /** A request under the lease in flight: one at a time, spaced like any other. */
  private under(slot: HostSlot, host: string, intervalMs: number, gapMs: number, leaseMs: number, now: number, endOnly: boolean): AcquireResult {
    if (slot.sub !== undefined) {
      if (now < slot.subExpiresAt) return { ok: false, retryAt: Math.min(now + Math.max(gapMs, intervalMs, 1), slot.subExpiresAt) };
      if (slot.lastEndedAt === undefined || slot.subExpiresAt > slot.lastEndedAt) slot.lastEndedAt = slot.subExpiresAt;
      slot.sub = undefined;
    }
    const readyAt = Math.max(slot.lastEndedAt === undefined ? 0 : slot.lastEndedAt + gapMs, slot.notBefore);
    if (readyAt > now) return refused(slot, intervalMs, gapMs, readyAt);
    const token = this.prefix + ++this.tokens;
    slot.sub = token;
    slot.subExpiresAt = now + leaseMs;
    // The same holder, which may know more now (the page after its robots.txt): the largest.
    if (!endOnly && intervalMs > slot.heldIntervalMs) slot.heldIntervalMs = intervalMs;
    return { ok: true, lease: { host, token, grantedAt: now } };
  }

  async release(lease: Lease, endedAt: number, notBefore?: number): Promise<void> {
    this.releaseSync(lease, endedAt, notBefore);
  }

  /** `release` without the promise. */
  releaseSync(lease: Lease, endedAt: number, notBefore?: number): void {
    const slot = this.slots.get(lease.host);
    if (!slot) return;
    if (slot.token === lease.token) {
      slot.token = undefined;
      slot.sub = undefined;
    } else if (slot.sub !== undefined && slot.sub === lease.token) {
      slot.sub = undefined;
    } else return; // expired and taken over: not ours any more
    // Never earlier than an end already known: a seed from an earlier run must not undo this one.
    if (slot.lastEndedAt === undefined || endedAt > slot.lastEndedAt) slot.lastEndedAt = endedAt;
    if (notBefore !== undefined && notBefore > slot.notBefore) slot.notBefore = notBefore;
    // To the back of the map's order: its front is then the host released longest ago.
    this.slots.delete(lease.host);
    this.slots.set(lease.host, slot);
  }

  /** How many hosts' records are held. */
  get hostsHeld(): number {
    return this.slots.size;
  }

  /** Drop the records, oldest release first, of hosts with nothing in flight whose last response
   *  ended longer ago than any interval they asked for (and KEEP_IDLE_MS), and whose back-off has
   *  passed: a request to such a host may go at once, as it could without its record. */
  private dropIdle(now: number): void {
    let n = 0;
    for (const [host, slot] of this.slots) {
      if (n++ >= DROP_PER_CALL || slot.token !== undefined || slot.lastEndedAt === undefined) return;
      if (now < slot.lastEndedAt + Math.max(slot.maxIntervalMs, KEEP_IDLE_MS) || now < slot.notBefore) return;
      this.slots.delete(host);
    }
  }

  async close(): Promise<void> {
    this.slots.clear();
  }
}
