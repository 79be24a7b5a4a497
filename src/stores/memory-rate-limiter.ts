// The default RateLimiter: per-host leases in this process's memory. A fleet uses the Redis one,
// which keeps the same promise across processes.
import type { AcquireResult, Lease, RateLimiter } from './types.js';

interface HostSlot {
  /** Token of the lease in flight, if any. */
  token: string | undefined;
  /** When the lease in flight stops counting (its holder is presumed dead), ms since epoch. */
  leaseExpiresAt: number;
  /** When the previous response ended, ms since epoch (undefined before the first). */
  lastEndedAt: number | undefined;
  /** Retry-After back-off, ms since epoch. */
  notBefore: number;
}

/** Per-host politeness leases held in memory. `now` is injectable for tests. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly slots = new Map<string, HostSlot>();
  private tokens = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async tryAcquire(host: string, intervalMs: number, leaseMs: number): Promise<AcquireResult> {
    return this.tryAcquireSync(host, intervalMs, leaseMs);
  }

  /** `tryAcquire` without the promise: a warm request on an open slot pays no extra tick. */
  tryAcquireSync(host: string, intervalMs: number, leaseMs: number): AcquireResult {
    const now = this.now();
    let slot = this.slots.get(host);
    if (!slot) {
      slot = { token: undefined, leaseExpiresAt: 0, lastEndedAt: undefined, notBefore: 0 };
      this.slots.set(host, slot);
    }
    if (slot.token !== undefined) {
      if (now < slot.leaseExpiresAt) {
        // In flight: the earliest the host can open is the interval after a release that has
        // not happened yet, so now + interval is a safe lower bound.
        return { ok: false, retryAt: Math.min(now + Math.max(intervalMs, 1), slot.leaseExpiresAt) };
      }
      // The holder never released: its request is presumed ended when the lease expired.
      slot.lastEndedAt = slot.leaseExpiresAt;
      slot.token = undefined;
    }
    const readyAt = Math.max(slot.lastEndedAt === undefined ? 0 : slot.lastEndedAt + intervalMs, slot.notBefore);
    if (readyAt > now) return { ok: false, retryAt: readyAt };
    const token = `${process.pid}-${++this.tokens}`;
    slot.token = token;
    slot.leaseExpiresAt = now + leaseMs;
    return { ok: true, lease: { host, token, grantedAt: now } };
  }

  async release(lease: Lease, endedAt: number, notBefore?: number): Promise<void> {
    const slot = this.slots.get(lease.host);
    if (!slot || slot.token !== lease.token) return; // expired and taken over: not ours any more
    slot.token = undefined;
    // Never earlier than an end already known: a seed from an earlier run must not undo this one.
    if (slot.lastEndedAt === undefined || endedAt > slot.lastEndedAt) slot.lastEndedAt = endedAt;
    if (notBefore !== undefined && notBefore > slot.notBefore) slot.notBefore = notBefore;
  }

  async close(): Promise<void> {
    this.slots.clear();
  }
}
