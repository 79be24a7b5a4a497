// A robots.txt that redirects to another origin's /robots.txt (http → https, example.com →
// www.example.com) reads that origin's own file. The gate asks for such a file once while it is
// fresh, whichever of the two origins is asked first, and never sooner after the host's last
// request than the Crawl-delay the file asks for. The bytes are what that URL served this user
// agent a moment ago; RFC 9309 §2.4 lets a crawler use a cached copy.
import type { CachedHop, RobotsFetchResult } from '../fetcher/robots-fetcher.js';
import type { PolicyStore } from '../stores/types.js';
import type { Entry } from './entry.js';
import type { OriginCache } from './origin-cache.js';
import type { ResolvedOptions } from './options.js';
import { recordFromFetch } from './policy-record.js';
import type { GatePolicyRecord } from './types.js';

/** What the gate lends: its loads in flight, its store and cache, and how it installs a record. */
export interface RedirectTargetHost {
  readonly flights: ReadonlyMap<string, Promise<Entry>>;
  readonly store: PolicyStore;
  readonly local: OriginCache<Entry>;
  readonly options: ResolvedOptions;
  install(record: GatePolicyRecord, seen: GatePolicyRecord | undefined): void;
}

/** One origin's own robots.txt fetch, as the redirect targets see it. */
export interface OwnFetch {
  /** Aborts the fetch once a redirect from elsewhere has brought the same file. */
  readonly signal: AbortSignal;
  /** The copy a redirect brought while this fetch waited (the fetch was aborted for it), if any. */
  adopted(): GatePolicyRecord | undefined;
  /** The fetch is over: nothing waits on it any more. */
  end(): void;
}

export class RedirectTargets {
  /** Origins whose own load is in flight and that a redirect into them has just brought: that copy. */
  readonly #adopted = new Map<string, GatePolicyRecord>();
  readonly #ownFetches = new Map<string, AbortController>();
  /** Origins whose fetch is following a redirect: a hop into one of them does not wait for its load. */
  readonly #hopping = new Set<string>();

  constructor(readonly host: RedirectTargetHost) {}

  /** The copy a redirect brought for `origin` while its load was on the way to fetching, if any. */
  broughtFor(origin: string): GatePolicyRecord | undefined {
    return this.#adopted.get(origin);
  }

  /** `origin`'s load has ended: what was brought for it is no longer wanted. */
  loadEnded(origin: string): void {
    this.#adopted.delete(origin);
  }

  /** Start `origin`'s own fetch. */
  ownFetch(origin: string): OwnFetch {
    const own = new AbortController();
    this.#ownFetches.set(origin, own);
    return {
      signal: own.signal,
      adopted: () => (own.signal.aborted ? this.#adopted.get(origin) : undefined),
      end: () => {
        if (this.#ownFetches.get(origin) === own) this.#ownFetches.delete(origin);
        this.#hopping.delete(origin);
      },
    };
  }

  /**
   * A fresh copy of the robots.txt at `url` (another origin's, not itself redirected) that `from`'s
   * redirect hop can be answered from. A load of that origin under way is waited for: its request
   * would hold the host's slot and the hop go out after it under the floor alone, before the
   * Crawl-delay the file asks for. Unless that load follows a redirect itself: two loads redirected
   * into each other must not wait on each other.
   */
  async cachedHop(from: string, url: string): Promise<CachedHop | undefined> {
    this.#hopping.add(from);
    const to = robotsOriginOf(url);
    if (to === undefined) return undefined;
    const loading = this.host.flights.get(to);
    if (loading !== undefined && !this.#hopping.has(to)) await loading.catch(() => {});
    const r = (await this.host.store.get(to).catch(() => undefined)) as GatePolicyRecord | undefined;
    const left = r === undefined ? 0 : r.expiresAt - Date.now();
    if (r?.kind !== 'parsed' || left <= 0 || r.stale || r.finalUrl !== r.robotsUrl || r.body === undefined || r.sha256 === null || typeof r.status !== 'number') return undefined;
    return { status: r.status, bytes: Buffer.from(r.body), sha256: r.sha256, maxAgeMs: left, ...(r.html ? { html: true } : {}), ...(r.truncated ? { truncated: true } : {}) };
  }

  /**
   * `origin`'s fetch redirected to another origin's /robots.txt and brought its file: kept for that
   * origin (in the store, where its first check looks), and in force at once where the gate holds an
   * older copy (a refresh through the redirect learns the target's change first: its queue is
   * re-checked by the policy-change event). While that origin's own load is under way, its request
   * most likely waiting behind the hop that brought the file, that load takes this copy instead.
   */
  adopt(origin: string, result: RobotsFetchResult): void {
    if (result.kind !== 'parsed' || result.hops.length < 2) return;
    const to = robotsOriginOf(result.finalUrl);
    if (to === undefined || to === origin) return;
    const { local, store } = this.host;
    const held = local.peek(to);
    if (held !== undefined && held.record.fetchedAt >= result.fetchedAt) return;
    const own: RobotsFetchResult = { ...result, robotsUrl: result.finalUrl, hops: result.hops.slice(-1) };
    const record = recordFromFetch(to, own, undefined, this.host.options);
    if (this.host.flights.has(to)) {
      this.#adopted.set(to, record);
      this.#ownFetches.get(to)?.abort();
      return;
    }
    if (held !== undefined) this.host.install(record, held.record);
    // Only where the origin has nothing fresher: a store shared by a fleet may hold its own copy.
    void store
      .get(to)
      .then((have) => (have !== undefined && have.expiresAt > Date.now() ? undefined : store.set(record)))
      .catch(() => {});
  }
}

/** The origin `url` is the robots.txt of (its /robots.txt, no query; a redirect's URL has no
 *  fragment), else undefined. */
function robotsOriginOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.pathname === '/robots.txt' && u.search === '' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}
