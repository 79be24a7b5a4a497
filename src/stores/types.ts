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

/** How a slot is asked for (RateLimiter.tryAcquire). */
export interface AcquireOptions {
  /**
   * The lease sends no request: it only moves the host's last end (a seed read back from an
   * earlier run, a rendered page's end moved once its subresources ended). It waits only for a
   * request in flight and a back-off, not for any interval, and leaves the remembered interval
   * (see RateLimiter) as it is: it knows nothing of the host, so it must not lower it.
   */
  readonly endOnly?: boolean;
}

export type AcquireResult =
  | { readonly ok: true; readonly lease: Lease }
  /** Not now: try again at `retryAt` (ms since epoch). `heldIntervalMs`: present when what holds
   *  the request is the remembered interval (see RateLimiter), longer than the one asked for, run
   *  from the last end: neither a back-off nor a request in flight. */
  | { readonly ok: false; readonly retryAt: number; readonly heldIntervalMs?: number };

/**
 * The per-host politeness lease. A host may be sent a request only when no request to it is in
 * flight (anywhere, for a shared limiter) and max(`intervalMs`, the remembered interval) has
 * passed since the last response from it ended, and any back-off (`notBefore`) has passed.
 *
 * The remembered interval is the one the host's last lease was granted under (raised by the
 * requests granted `within` it): what its holder knew of the host. Each caller asks what IT
 * knows, and callers know different things: a gate that has the host's robots.txt asks its
 * Crawl-delay, while another gate on the same limiter, whose first request is that robots.txt
 * itself, can only ask its floor. Without the remembered interval the second one would go a
 * floor after the first one's page, and two gates (or a crawl and ten processes) would add up
 * to more than one polite crawler. So the gap between two consecutive requests is at least the
 * larger of the two intervals. The next lease replaces it (its gap has passed by then), so an
 * interval that shrinks (a Crawl-delay lowered) counts from the request after. A lease that
 * lapses unreleased counts as ended at its expiry, under its interval. A host's record is kept
 * while any of this still constrains its next request.
 */
export interface RateLimiter {
  /**
   * @param intervalMs the gap to keep after the previous response ended (ms), already including
   *   crawl-delay, floor with jitter and override interval.
   * @param leaseMs how long the lease lives if never released (its holder died).
   * @param within a lease on `host` the caller holds already (a fleet frontier's take, whose
   *   token is this limiter's): while it is the host's live lease, the request is one more under
   *   it, not a second slot. One such request is in flight at a time, spaced like any other after
   *   the last response from the host ended, and its release moves that end. Otherwise (another holder,
   *   lapsed, a token this limiter never granted) the slot is taken as without it.
   * @param options `endOnly`: the lease sends nothing (see AcquireOptions). A limiter that does
   *   not know it treats the lease as a request under `intervalMs`.
   * @returns the lease, or when to ask again (`retryAt`, ms since epoch): never later than the
   *   host could open, so a caller that polls then loses no turn. While a request is in flight
   *   that is its release plus the larger interval at the earliest, so `now` + that (or the
   *   lease's expiry, if sooner).
   */
  tryAcquire(host: string, intervalMs: number, leaseMs: number, within?: Lease, options?: AcquireOptions): Promise<AcquireResult>;
  /** The response ended at `endedAt` (ms since epoch). `notBefore` pushes the host's next slot
   *  later still (Retry-After back-off). A lease granted `within` another leaves that one held. */
  release(lease: Lease, endedAt: number, notBefore?: number): Promise<void>;
  close(): Promise<void>;
}
