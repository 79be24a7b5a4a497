// The politeness layer's shapes: the frontier a crawl takes its next URL from. Two
// implementations share this interface (memory here, Redis for a fleet); the crawl job never
// knows which one runs. Times are milliseconds since the epoch unless a name says otherwise.
import type { Lease } from '../stores/types.js';

/** What the gap before a request came from (recorded in the audit as `waitReason`). */
export type WaitReason = 'crawl-delay' | 'floor' | 'override' | 'backoff';

/** One URL waiting in (or taken from) the frontier. */
export interface FrontierItem {
  /** Normalised absolute URL: the deduplication key. */
  readonly url: string;
  /** Politeness key: `URL.host` (lower-case host, plus the port when not the default). */
  readonly host: string;
  /** 1 for the first try; a retry after a 429/503 back-off comes back with 2, 3, … */
  readonly attempt: number;
}

/** What the frontier knows about a host's policy, set by the crawl once the gate has decided. */
export interface HostPolicy {
  /** Crawl-delay in SECONDS from the group that applies (already clamped if the caller clamps). */
  readonly crawlDelaySeconds?: number;
  /** True while the host is under override: its interval is at least `overrideIntervalMs`. */
  readonly underOverride?: boolean;
}

/** The next URL that may be sent now, with the host's lease. */
export interface TakenItem {
  readonly item: FrontierItem;
  /** Hold it until `complete` or `fail`: one request in flight per host. */
  readonly lease: Lease;
  /** The interval (ms) that applied between the previous response from this host and now;
   *  null for the first request to the host. */
  readonly intervalMs: number | null;
  /** Which term of the interval was the largest; null for the first request to the host. */
  readonly waitReason: WaitReason | null;
}

export type TakeResult =
  | ({ readonly kind: 'item' } & TakenItem)
  /** Nothing may be sent now. `retryAt`: the earliest time a host's slot opens (ms since epoch);
   *  null when every sendable host is in flight or the concurrency limit is reached, so only a
   *  `complete`/`fail` can free something. */
  | { readonly kind: 'wait'; readonly retryAt: number | null }
  /** No URL is queued and none is in flight. */
  | { readonly kind: 'drained' };

export interface ReleaseOptions {
  /** Push the host's next slot at least to this time (ms since epoch): a Retry-After back-off. */
  readonly notBefore?: number;
  /** Nothing was sent to the host (the URL was blocked or skipped): its interval keeps running
   *  from the previous response, so a refusal costs the host no extra wait. */
  readonly notSent?: boolean;
}

export interface FailOptions extends ReleaseOptions {
  /** Put the URL back at the head of its host's queue, with `attempt + 1`. */
  readonly retry?: boolean;
  /** Put the URL back at the head of its host's queue with the SAME attempt: it was not tried,
   *  only handed back (give `notSent` too: nothing was sent for it), e.g. because its host's slot
   *  opens later than the frontier knew when it offered the host (a Crawl-delay the URL's check
   *  has just learned), so that the worker can take another host meanwhile. Give `holdUntil`
   *  with it. Ignored with `retry`. */
  readonly requeue?: boolean;
  /** No take of the host before this (ms since epoch): when the limiter said its slot opens.
   *  Not a back-off (`notBefore` is, and it reaches the limiter; this does not), and no interval:
   *  it counts from a response the frontier may not know of (the robots.txt request the URL's
   *  check made), so the next take's `intervalMs` and `waitReason` stay the host's interval's. */
  readonly holdUntil?: number;
}

/** Progress counts. */
export interface FrontierCounts {
  /** URLs waiting (not in flight). */
  readonly queued: number;
  readonly inFlight: number;
  /** URLs completed or failed for good. */
  readonly done: number;
  /** Hosts with queued URLs. */
  readonly hosts: number;
  /** Hosts with queued URLs whose slot is not open yet (waiting on their interval). */
  readonly hostsWaiting: number;
  /** A fleet's frontier: redirect targets queued as URLs of their own so far, by every worker
   *  (those noteRedirect recorded). Absent where each crawl knows its own (the memory frontier). */
  readonly redirects?: number;
}

/**
 * A queue of URLs per host, served so that each host sees at most one request at a time and at
 * least its interval between the end of one response and the start of the next:
 * interval = max(crawl-delay (s → ms), minIntervalMs × (1 + jitter up to 0.2), overrideIntervalMs
 * while under override), and later still after a Retry-After back-off.
 */
export interface Frontier {
  /** Enqueue URLs (already normalised). Idempotent: a URL seen before, done or not, is ignored.
   *  @returns how many were new. */
  add(items: readonly { url: string; host: string }[]): Promise<number>;
  /** Take the next URL whose host may be sent now, with its lease; or learn when to retry. */
  take(now?: number): Promise<TakeResult>;
  /** `take` answered at once, for a frontier that needs no I/O to answer (the in-memory one): a
   *  crawl's take loop then pays no promise and no abort listener per URL. */
  takeSync?(now?: number): TakeResult;
  /** The request ended (`endedAt`, ms since epoch): the URL is done and the host released. */
  complete(taken: TakenItem, endedAt: number, options?: ReleaseOptions): Promise<void>;
  /** The request failed: release the host; requeue the URL when `retry`, else it is done. */
  fail(taken: TakenItem, endedAt: number, options?: FailOptions): Promise<void>;
  /** Set a host's policy terms (crawl-delay, override). Reschedules the host if it is waiting. */
  setHostPolicy(host: string, policy: HostPolicy): Promise<void>;
  /** The URLs queued for a host (not in flight), in queue order: for re-evaluation after a
   *  policy change. */
  pending(host: string): Promise<FrontierItem[]>;
  /** Remove queued URLs of a host (they count as done): e.g. newly disallowed, or a host skipped
   *  for a Crawl-delay over the maximum. @returns how many were removed. */
  remove(host: string, urls: readonly string[]): Promise<number>;
  counts(): Promise<FrontierCounts>;
  /** Seed a host's politeness from an earlier run (e.g. read back from the audit on resume):
   *  its previous response ended at `lastEndedAt` (ms since epoch) under an interval of
   *  `intervalMs` (ms, null if unknown), so the first request of this run keeps the interval;
   *  and `hold`, when given, keeps the host from being taken before `hold.until` (a back-off or
   *  a Crawl-delay that run was under), so no worker takes its URL only to wait in the limiter
   *  holding a concurrency slot. Optional: a shared frontier keeps this state itself (the Redis
   *  one reads the holds from the limiter's host hash, where the limiter's seed puts them). */
  seedHost?(host: string, lastEndedAt: number, intervalMs: number | null, hold?: SeedHold): void;
  /** True when nothing is queued and nothing is in flight. */
  isDrained(): Promise<boolean>;
  close(): Promise<void>;
  /** True when a taken item's lease is the rate limiter's own lease on its host (RedisFrontier
   *  over the limiter's Redis and prefix): what is sent for the item (its robots.txt request, the
   *  page) asks the limiter `within` that lease instead of for a second slot, which would wait for
   *  the lease held. Absent: the item's requests take the host's slot from the limiter anew. */
  readonly limiterLeases?: boolean;
  /** A fleet's frontier: record, for whichever worker takes `url`, that it is a redirect target
   *  (its parent, and how many hops deep), so the chain's limit and the row's parent hold across
   *  workers. Only when `url` was not known yet; returns whether it was recorded. */
  noteRedirect?(url: string, via: RedirectVia): Promise<boolean>;
  /** Forget a record noteRedirect made (the URL turned out to be queued already). */
  forgetRedirect?(url: string): Promise<void>;
  /** What noteRedirect recorded for `url`, if anything. */
  redirectOf?(url: string): Promise<RedirectVia | undefined>;
  /** The floor (ms, without jitter) it spaces each host by: what a crawl keeps from a host's
   *  robots.txt request to its first URL, which the frontier itself does not space. */
  readonly minIntervalMs?: number;
}

/** What held a host at the end of an earlier run: no request to it before `until`. */
export interface SeedHold {
  /** ms since epoch. */
  readonly until: number;
  /** What `until` came from: `backoff` for a 429/503 Retry-After (RFC 9110 §10.2.3), else the
   *  largest term of the interval the earlier run kept (`crawl-delay`, `override`, `floor`).
   *  The take that waited for it reports this as its `waitReason`. */
  readonly reason: WaitReason;
}

/** Options shared by frontier implementations. */
export interface FrontierOptions {
  /** Floor between two requests to one host (ms). Default 2,000. */
  readonly minIntervalMs?: number;
  /** Largest random jitter added to the floor, as a fraction of it. Default 0.2 (+0 to +20 %),
   *  so that many crawlers do not fall into step. */
  readonly jitter?: number;
  /** Interval (ms) for a host under override. Default 10,000. */
  readonly overrideIntervalMs?: number;
  /** Requests in flight at most, over all hosts. Default 16. */
  readonly concurrency?: number;
  /** A lease not released after this long is void (ms). Default 120,000. */
  readonly leaseMs?: number;
  /** Random source in [0, 1), for the jitter (tests may fix it). Default Math.random. */
  readonly random?: () => number;
}

/** How a redirect target came to be: the URL whose 3xx named it, and its hops from the list. */
export interface RedirectVia {
  readonly parent: string;
  readonly depth: number;
}
