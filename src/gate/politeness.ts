// The gate's side of politeness: which requests wait (not exempt ones), for how long (the host's
// interval from its policy), and the dispatchers that make them wait. The waiting itself is the
// politeness layer's (Pacer over the RateLimiter), shared with the crawl.
import { domainToASCII } from 'node:url';
import { Dispatcher } from 'undici';
import { hostInterval, type Interval, type IntervalTerms } from '../politeness/interval.js';
import { pacerFor, type Cancellation, type Pacer } from '../politeness/pacer.js';
import type { Lease, RateLimiter } from '../stores/types.js';
import { InvalidOptionError } from './errors.js';
import type { ResolvedOptions } from './options.js';
import type { Decision } from './types.js';
import { backoffUntil, dispatchPaced, isPaced, leaseOf, WaitCancel, withLease, type PaceTerms } from './pace.js';
import { pacedDispatch } from './direct-pace.js';

/** What the politeness side asks the gate about a host. */
export interface HostLookup {
  /** Crawl-delay (s) of the copy in force for `origin` (stale copies count), if known. */
  crawlDelaySeconds(origin: string): number | undefined;
  isUnderOverride(hostname: string): boolean;
}

/** What gate.fetch and the interceptor use of the gate (built by it; not public). */
export interface GateDoor {
  readonly userAgent: string;
  /** `{ 'user-agent': userAgent }`, frozen: the request headers when the caller gives none. */
  readonly headers: Readonly<Record<string, string>>;
  readonly politeness: GatePoliteness;
  /** The `politeness` option: do the doors wait? */
  readonly paced: boolean;
  /** @param via the dispatch robots.txt goes through, if not the gate's own dispatcher. */
  check(url: string, signal?: Cancellation, via?: Dispatcher.Dispatch): Promise<Decision>;
  /** `check`'s decision for `url` when it takes no I/O (a warm origin or an exempt URL, in
   *  canonical form); undefined when `check` is to be asked. Published like `check`'s. */
  decideNow(url: string): Decision | undefined;
  /** The gate's dispatcher, composed with pacing when `paced`. */
  dispatcher(paced: boolean): Dispatcher;
  /** The error for a decision the doors must not send (disallowed, Crawl-delay too long). */
  blocked(d: Decision): Error | undefined;
}

/** A Dispatcher over a bare dispatch function: the one an interceptor is composed onto. */
class DispatchFn extends Dispatcher {
  constructor(readonly fn: Dispatcher.Dispatch) {
    super();
  }
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.fn(opts, handler);
  }
  override async close(): Promise<void> {}
  override async destroy(): Promise<void> {}
}

/** A dispatch origin's pacing, built once. */
interface OriginTerms {
  readonly hostname: string;
  /** Exempt by host or origin (a predicate is asked per URL). */
  readonly exempt: boolean;
  readonly terms: PaceTerms;
}

export class GatePoliteness {
  readonly pacer: Pacer;
  /** Aborted by close(): every wait for a slot through this gate listens to it. */
  readonly #closing = new WaitCancel();
  readonly #o: ResolvedOptions;
  readonly #terms: IntervalTerms;
  readonly #lookup: HostLookup;
  readonly #exempt: ((url: URL) => boolean) | undefined;
  readonly #exemptHosts: ReadonlySet<string>;
  readonly #exemptOrigins: ReadonlySet<string>;
  readonly #viaDispatch = new WeakMap<Dispatcher.Dispatch, Dispatcher>();
  /** Dispatch origins as parsed (a request's `opts.origin`) with their terms: one `new URL` per
   *  origin, not per request. */
  readonly #origins = new Map<string, OriginTerms | null>();

  constructor(limiter: RateLimiter, o: ResolvedOptions, lookup: HostLookup, exempt: readonly string[] | ((url: URL) => boolean) | undefined) {
    this.pacer = pacerFor(limiter);
    this.#o = o;
    this.#terms = { minIntervalMs: o.minIntervalMs, overrideIntervalMs: o.overrideIntervalMs };
    this.#lookup = lookup;
    const hosts = new Set<string>();
    const origins = new Set<string>();
    if (typeof exempt === 'function') this.#exempt = exempt;
    else if (exempt !== undefined) {
      if (!Array.isArray(exempt) || !exempt.every((e) => typeof e === 'string' && e.trim() !== '')) {
        throw new InvalidOptionError('exempt', `RobotsGate option exempt must be an array of hosts or origins, or a function of the URL, got ${JSON.stringify(exempt)}`);
      }
      for (const e of exempt) {
        if (e.includes('://')) {
          let u: URL;
          try {
            u = new URL(e);
          } catch {
            throw new InvalidOptionError('exempt', `RobotsGate option exempt: ${JSON.stringify(e)} is not an origin (scheme://host[:port])`);
          }
          // Exempting a whole origin for an entry that names one path would pass far more than asked.
          if (u.pathname !== '/' || u.search !== '' || u.hash !== '' || e.endsWith('?') || e.endsWith('#') || u.username !== '' || u.password !== '') {
            throw new InvalidOptionError(
              'exempt',
              `RobotsGate option exempt: ${JSON.stringify(e)} is a URL with a path, query or fragment, not an origin (scheme://host[:port]): ` +
                `an entry exempts a whole host or origin; to exempt some paths, give a predicate, e.g. ` +
                `exempt: (url) => url.origin === ${JSON.stringify(u.origin)} && url.pathname.startsWith(${JSON.stringify(u.pathname)})`,
            );
          }
          origins.add(u.origin);
        } else hosts.add(hostOnly(e));
      }
    }
    this.#exemptHosts = hosts;
    this.#exemptOrigins = origins;
  }

  /** Has close() been called? */
  get closed(): boolean {
    return this.#closing.aborted;
  }

  /** End every wait for a slot through this gate (now and later) with `reason`; requests already
   *  sent are not touched. */
  close(reason: Error): void {
    this.#closing.abort(reason);
  }

  /** Is this URL outside robots.txt's reach by the caller's `exempt` option? */
  isExempt(url: string, origin: string, hostname: string): boolean {
    if (this.#exemptHosts.size && this.#exemptHosts.has(hostname)) return true;
    if (this.#exemptOrigins.size && this.#exemptOrigins.has(origin)) return true;
    if (this.#exempt === undefined) return false;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return false;
    }
    return this.#exempt(u) === true;
  }

  /** The interval for `host` now: max(Crawl-delay, floor × jitter, override), jitter drawn per gap. */
  interval(origin: string, hostname: string): Interval {
    let delay = this.#lookup.crawlDelaySeconds(origin);
    // Over the maximum: a request the doors let through (clampCrawlDelay, a robots.txt request)
    // is spaced at the maximum.
    if (delay !== undefined && delay * 1000 > this.#o.maxCrawlDelayMs) delay = this.#o.maxCrawlDelayMs / 1000;
    const factor = 1 + Math.random() * this.#o.jitter;
    return hostInterval({ crawlDelaySeconds: delay, underOverride: this.#lookup.isUnderOverride(hostname) }, this.#terms, factor);
  }

  /** Crawl-delay (s) over maxCrawlDelayMs without clampCrawlDelay: the doors block the host. */
  tooLong(crawlDelaySeconds: number | undefined): boolean {
    return this.#o.politeness && !this.#o.clampCrawlDelay && crawlDelaySeconds !== undefined && crawlDelaySeconds * 1000 > this.#o.maxCrawlDelayMs;
  }

  /** How a request to `origin` + `path` waits; undefined when it does not (exempt). One object per
   *  origin, built once: a warm request allocates none. */
  terms(origin: string, path: string, force = false, lease?: Lease): PaceTerms | undefined {
    let u = this.#origins.get(origin);
    if (u === undefined) {
      u = this.#originTerms(origin);
      if (this.#origins.size >= 10_000) this.#origins.clear();
      this.#origins.set(origin, u);
    }
    if (u === null) return undefined;
    if (!force && (u.exempt || (this.#exempt !== undefined && this.isExempt(u.terms.origin + path, u.terms.origin, u.hostname)))) return undefined;
    return lease !== undefined && lease.host === u.terms.host ? { ...u.terms, within: lease } : u.terms;
  }

  #originTerms(origin: string): OriginTerms | null {
    let p: URL;
    try {
      p = new URL(origin);
    } catch {
      return null;
    }
    const { origin: o, hostname } = p;
    return {
      hostname,
      exempt: (this.#exemptHosts.size > 0 && this.#exemptHosts.has(hostname)) || (this.#exemptOrigins.size > 0 && this.#exemptOrigins.has(o)),
      terms: {
        pacer: this.pacer,
        host: p.host,
        origin: o,
        within: undefined,
        closing: this.#closing,
        interval: () => this.interval(o, hostname),
        backoff: (retryAfter, endedAt) => backoffUntil(retryAfter, endedAt, this.#o.defaultBackoffMs, this.#o.maxBackoffMs),
      },
    };
  }

  /** An interceptor that makes every request through it wait for its host's slot. `force`: even
   *  exempt ones (robots.txt requests the gate makes itself). */
  interceptor(force: boolean): Dispatcher.DispatcherComposeInterceptor {
    return (dispatch) =>
      (opts, handler) => {
        if (isPaced(opts)) return dispatch(opts, handler);
        return dispatchPaced(dispatch, opts, handler, this.#termsOf(opts, force));
      };
  }

  /** `inner` with every request waiting for its host's slot (exempt ones aside): gate.fetch's
   *  dispatcher. Not composed, so fetch's handler passes without undici's header conversions. */
  paced(inner: Dispatcher): Dispatcher {
    return new DispatchFn(pacedDispatch(inner, (opts) => this.#termsOf(opts, false)));
  }

  #termsOf(opts: Dispatcher.DispatchOptions, force: boolean): PaceTerms | undefined {
    const origin = typeof opts.origin === 'string' ? opts.origin : String(opts.origin);
    return this.terms(origin, opts.path, force, leaseOf(opts));
  }

  /** `paced` (one of the dispatchers above), its requests to `lease`'s host sent under that lease. */
  under(paced: Dispatcher, lease: Lease | undefined): Dispatcher {
    return lease === undefined ? paced : paced.compose(withLease(lease));
  }

  /** The dispatcher for robots.txt requests that travel the way `dispatch` sends (the one the
   *  interceptor was composed onto: its proxy, TLS and resolve entries), paced. */
  robotsVia(dispatch: Dispatcher.Dispatch): Dispatcher {
    let d = this.#viaDispatch.get(dispatch);
    if (d === undefined) {
      d = new DispatchFn(dispatch).compose(this.interceptor(true));
      this.#viaDispatch.set(dispatch, d);
    }
    return d;
  }
}

/** A host name as URL.hostname gives it (lower case, punycode); a `:port` suffix is dropped. */
export function hostOnly(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1) || h;
  const name = h.replace(/:\d*$/, '');
  return domainToASCII(name) || name;
}
