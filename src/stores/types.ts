// The two interfaces with a memory and a Redis implementation each. Nothing above this layer
// knows which one runs. Times are milliseconds since the epoch unless a name says otherwise.

/** What is known about one origin's robots.txt: serialisable, so a fleet can share it. */
export interface PolicyRecord {
  readonly origin: string;
  readonly robotsUrl: string;
  readonly finalUrl: string;
  /** `parsed`: a 2xx body; `unavailable`: 4xx or too many redirects (allow all);
   *  `unreachable`: 5xx, 429, network failure (disallow all). */
  readonly kind: 'parsed' | 'unavailable' | 'unreachable';
  readonly status: number | string;
  /** For `unreachable` from a network failure: the error's message, its causes' after it (undici's
   *  own, e.g. a proxy's refusal `Proxy response (501) !== 200 when HTTP Tunneling`). */
  readonly error?: string;
  /** True when `kind` is unavailable because of too many redirects or a loop (§2.3.1.2). */
  readonly redirectLimit?: boolean;
  /** With redirectLimit, for a loop: the URL the last redirect pointed back to (finalUrl itself
   *  when the file redirects to itself). Absent when the chain was only too long. */
  readonly redirectLoop?: string;
  /** The decoded body text (first maxBytes); present when kind is `parsed`. */
  readonly body?: string;
  readonly sha256: string | null;
  /** ms since epoch. */
  readonly fetchedAt: number;
  /** ms since epoch. */
  readonly expiresAt: number;
  readonly html?: boolean;
}

/**
 * Where policies live between fetches. The gate keeps parsed copies in a local LRU in front of
 * this; the store is consulted on a miss or expiry, so it is off the hot path.
 */
export interface PolicyStore {
  get(origin: string): Promise<PolicyRecord | undefined>;
  set(record: PolicyRecord): Promise<void>;
  /**
   * Run `load` for `origin` once among everyone sharing this store; concurrent callers (in this
   * process, or in other workers for a shared store) wait for that result instead of loading too.
   * A loader that dies leaves the origin to the others after `leaseMs`.
   */
  singleFlight(origin: string, load: () => Promise<PolicyRecord>, leaseMs: number): Promise<PolicyRecord>;
  /** Mark `host` as under override for the rest of the run (fleet-wide in a shared store). */
  markOverride(host: string): Promise<void>;
  isUnderOverride(host: string): Promise<boolean>;
  /** The per-host rate limiter shared by everyone sharing this store (a Redis store's, on the
   *  same connection and prefix), for a gate given this store and no `limiter`: a fleet that
   *  shares its robots.txt files must share each host's interval too. Absent for a store of one
   *  process. */
  readonly limiter?: RateLimiter;
  close(): Promise<void>;
}

/** Permission to send one request to one host. */
export interface Lease {
  readonly host: string;
  readonly token: string;
  /** ms since epoch when the lease was granted. */
  readonly grantedAt: number;
}

export type AcquireResult =
  | { readonly ok: true; readonly lease: Lease }
  /** Not now: try again at `retryAt` (ms since epoch). */
  | { readonly ok: false; readonly retryAt: number };

/**
 * The per-host politeness lease. A host may be sent a request only when no request to it is in
 * flight (anywhere, for a shared limiter) and `intervalMs` has passed since the last response
 * from it ended.
 */
export interface RateLimiter {
  /**
   * @param intervalMs the gap to keep after the previous response ended (ms), already including
   *   crawl-delay, floor with jitter and override interval.
   * @param leaseMs how long the lease lives if never released (its holder died).
   * @param within a lease on `host` the caller holds already (a fleet frontier's take, whose
   *   token is this limiter's): while it is the host's live lease, the request is one more under
   *   it, not a second slot. One such request is in flight at a time, `intervalMs` after the last
   *   response from the host ended, and its release moves that end. Otherwise (another holder,
   *   lapsed, a token this limiter never granted) the slot is taken as without it.
   */
  tryAcquire(host: string, intervalMs: number, leaseMs: number, within?: Lease): Promise<AcquireResult>;
  /** The response ended at `endedAt` (ms since epoch). `notBefore` pushes the host's next slot
   *  later still (Retry-After back-off). A lease granted `within` another leaves that one held. */
  release(lease: Lease, endedAt: number, notBefore?: number): Promise<void>;
  close(): Promise<void>;
}
