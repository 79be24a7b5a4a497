// RobotsGate: the one place every request passes. A local LRU of parsed policies in front of the
// PolicyStore keeps a warm check() free of I/O; a cold or expired origin is loaded once (single
// flight through the store) and every caller waits for that one fetch.
import { EventEmitter } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import { fetchRobotsTxt, type RobotsFetchResult } from '../fetcher/robots-fetcher.js';
import { createResolvingAgent } from '../fetcher/resolving-agent.js';
import { parseHttpUrl, robotsUrlOf, splitCanonicalUrl, splitHostname, splitOrigin, splitPathStart, splitPlain } from '../fetcher/url.js';
import { MemoryPolicyStore } from '../stores/memory-policy-store.js';
import type { Lease, PolicyRecord, PolicyStore, RateLimiter } from '../stores/types.js';
import { defaultLimiter, unlessAborted, type Cancellation } from '../politeness/pacer.js';
import type { Interval } from '../politeness/interval.js';
import { decisionChannel, fetchChannel, policyChangeChannel } from './channels.js';
import { crawlerIdentity } from './identity.js';
import { closedBeforeCall, GateClosedError, RobotsBlockedError } from './errors.js';
import { gatedFetch, type GateFetchInit } from './gated-fetch.js';
import { gateInterceptor } from './interceptor.js';
import { GatePoliteness, hostOnly, type GateDoor } from './politeness.js';
import { backoffUntil } from './pace.js';
import { checkOptionNames, resolveOptions, type ResolvedOptions, type RobotsGateOptions } from './options.js';
import { OriginCache } from './origin-cache.js';
import { RedirectTargets } from './redirect-targets.js';
import { newest, observedSha256, recordFromFetch, withBody } from './policy-record.js';
import { entryFor, sameRecord, type Entry } from './entry.js';
import { isReserved, signalsFromRobots, usageVerdict, type Purpose, type UsageVerdict } from '../usage/index.js';
import type { Decision, DecisionReason, GatePolicyRecord, PolicyChange } from './types.js';

/** Options of one check. */
export interface CheckOptions {
  /** Aborts the wait for robots.txt (this caller only: the fetch goes on for the others). */
  signal?: AbortSignal;
  /** A lease on the URL's host that the caller holds on this gate's `limiter` (a fleet frontier's
   *  take): a robots.txt request this check sends to that host goes under it (spaced, counted,
   *  its end moving the host's clock) rather than waiting for the slot the caller holds. Hops to
   *  other hosts take their own slots. A check that joins a load already in flight for the origin
   *  waits for that load as it is. */
  lease?: Lease;
}

/** The gate's own Agent: an idle connection is kept at most 5 s, whatever the server's Keep-Alive
 *  hint says (undici honours up to 10 min). A crawl visits each host every few seconds at most, so
 *  longer buys no reuse, and a broad crawl would hold one idle socket per host it has seen: 20,000
 *  hosts ran out of file descriptors. */
export const OWN_AGENT = { keepAliveTimeout: 4_000, keepAliveMaxTimeout: 5_000 } as const;

/** TDMRep's per-origin file (W3C TDM Reservation Protocol). */
const TDMREP_PATH = '/.well-known/tdmrep.json';

export interface RobotsGateEvents {
  /** A robots.txt record was fetched or loaded from the store into this gate. */
  policy: [record: PolicyRecord];
  /** An origin's policy changed (new body hash, or the file vanished or came back). */
  'policy-change': [change: PolicyChange];
  /** A host came under override (its first overridden decision in this run). */
  override: [host: string];
}

/**
 * Decides, per RFC 9309, whether this crawler may fetch a URL, and gates requests on it.
 *
 * Events (also on node:diagnostics_channel `robots-gate:fetch|decision|policy-change`):
 * `policy` (PolicyRecord), `policy-change` (PolicyChange), `override` (host).
 * @throws InvalidUserAgentError (code `ERR_INVALID_USER_AGENT`, `.problem`) for an empty or unsendable
 *   userAgent, a token that is not letters, digits, `_`, `-`, a browser-style `Mozilla/…` string naming no
 *   crawler without `productToken`, or a `productToken` the userAgent does not carry as a product.
 * @throws InvalidOptionError (a RangeError) for an out-of-range option; InvalidResolveEntryError
 *   (a TypeError) for a bad `resolve` entry; TypeError for dispatcher and resolve together.
 */
export class RobotsGate extends EventEmitter<RobotsGateEvents> {
  /** The User-Agent header every request carries. */
  readonly userAgent: string;
  /** The product token(s) in force, as the `productToken` option gave them (a string, or the ordered
   *  fallback list), else the token read from userAgent (`compatible; GPTBot/1.1` → `GPTBot`). */
  readonly productToken: string | readonly string[];
  /** The tokens in match order; the first one an origin's robots.txt names decides there. */
  readonly #tokens: readonly string[];
  /** Minimum spacing of requests to a host under override, in ms. */
  readonly overrideIntervalMs: number;
  /** Where each host's slot is kept (the `limiter` option, else the store's, else the process's one). */
  readonly limiter: RateLimiter;

  readonly #o: ResolvedOptions;
  readonly #pol: GatePoliteness;
  /** robots.txt requests: paced, through the gate's dispatcher. */
  readonly #robotsDispatcher: Dispatcher;
  /** gate.fetch: paced unless politeness is off. */
  readonly #pacedDispatcher: Dispatcher;
  readonly #door: GateDoor;
  readonly #dispatcher: Dispatcher;
  readonly #ownDispatcher: boolean;
  readonly #store: PolicyStore;
  readonly #ownStore: boolean;
  readonly #local: OriginCache<Entry>;
  readonly #flights = new Map<string, Promise<Entry>>();
  readonly #redirects: RedirectTargets;
  /** Origins with a refresh() in flight, and how many: their checks wait for it. */
  readonly #refreshing = new Map<string, number>();
  readonly #overrideAll: boolean;
  readonly #overrideHosts: ReadonlySet<string>;
  readonly #underOverride = new Set<string>();

  constructor(options: RobotsGateOptions) {
    super();
    // A misspelt name first: `userAgnet` is better said as itself than as a missing userAgent.
    checkOptionNames(options);
    const identity = crawlerIdentity(options?.userAgent, options?.productToken);
    this.userAgent = identity.userAgent;
    this.#tokens = identity.tokens;
    this.productToken = Array.isArray(options.productToken) ? identity.tokens : identity.tokens[0]!;
    this.#o = resolveOptions(options);
    this.overrideIntervalMs = this.#o.overrideIntervalMs;

    if (options.dispatcher && options.resolve?.length) {
      throw new TypeError('RobotsGate takes dispatcher or resolve, not both: build the dispatcher with createResolvingAgent(resolve)');
    }
    this.#ownDispatcher = !options.dispatcher;
    this.#dispatcher = options.dispatcher ?? (options.resolve?.length ? createResolvingAgent(options.resolve, OWN_AGENT) : new Agent(OWN_AGENT));
    this.#ownStore = !options.store;
    this.#store = options.store ?? new MemoryPolicyStore({ maxOrigins: this.#o.maxOrigins });
    this.#local = new OriginCache(this.#o.maxOrigins);
    this.#redirects = new RedirectTargets({
      flights: this.#flights,
      store: this.#store,
      local: this.#local,
      options: this.#o,
      install: (record, seen) => void this.#install(record, seen),
    });

    const override = options.override;
    this.#overrideAll = override === true;
    this.#overrideHosts = new Set(Array.isArray(override) ? override.map((h: string) => hostOnly(h)) : []);

    // A store shared across processes has a limiter shared likewise: spacing hosts on this process's
    // clock alone would let each worker send at the full rate.
    this.limiter = options.limiter ?? options.store?.limiter ?? defaultLimiter();
    this.#pol = new GatePoliteness(
      this.limiter,
      this.#o,
      {
        crawlDelaySeconds: (origin) => this.#local.peek(origin)?.crawlDelaySeconds,
        isUnderOverride: (hostname) => this.#underOverride.has(hostname),
      },
      options.exempt,
    );
    this.#robotsDispatcher = this.#dispatcher.compose(this.#pol.interceptor(true));
    this.#pacedDispatcher = this.#o.politeness ? this.#pol.paced(this.#dispatcher) : this.#dispatcher;
    this.#door = {
      userAgent: this.userAgent,
      headers: Object.freeze({ 'user-agent': this.userAgent }),
      politeness: this.#pol,
      paced: this.#o.politeness,
      check: (url, signal, via) => this.#check(url, signal, via),
      decideNow: (url) => (splitCanonicalUrl(url) ? this.#decideNow(url, splitOrigin, splitHostname, url, splitPathStart, splitPlain) : undefined),
      dispatcher: (paced) => (paced ? this.#pacedDispatcher : this.#dispatcher),
      blocked: (d) => blockedFor(d, this.#pol),
    };
  }

  /**
   * May this crawler fetch `url`? Resolves with the decision; a warm origin answers without I/O.
   * A URL the `exempt` option names is decided at once, reason `exempt`, without robots.txt.
   * @param url absolute http: or https: URL.
   * @param options.signal aborts this caller's wait for robots.txt (rejects with its reason).
   * @throws (rejects) TypeError naming a malformed URL; UnsupportedSchemeError for other schemes;
   *   GateClosedError when gate.close() ends its wait for robots.txt, or comes before a check that
   *   needs to fetch it.
   */
  check(url: string | URL, options?: CheckOptions): Promise<Decision> {
    // A check made after close() never waited: its GateClosedError says it was refused (the doors'
    // own checks are handled by the doors, which know when their call was made).
    if (this.#pol.closed) return this.#check(url, options?.signal, undefined, options?.lease).catch((err: unknown) => Promise.reject(closedBeforeCall(err)));
    return this.#check(url, options?.signal, undefined, options?.lease);
  }

  #check(url: string | URL, signal: Cancellation | undefined, via: Dispatcher.Dispatch | undefined, lease?: Lease): Promise<Decision> {
    let href: string;
    let origin: string;
    let hostname: string;
    // The path and query are path[pathStart, end): on the fast path the URL string itself, no slice
    // made; `plain`: they are in the matcher's normal form as they are (splitPlain).
    let path: string;
    let pathStart = 0;
    let plain = false;
    if (typeof url === 'string' && splitCanonicalUrl(url)) {
      href = url;
      path = url;
      origin = splitOrigin;
      hostname = splitHostname;
      pathStart = splitPathStart;
      plain = splitPlain;
    } else {
      let sent: SentUrl;
      try {
        sent = sentUrl(parseHttpUrl(url));
      } catch (err) {
        return Promise.reject(err);
      }
      ({ href, origin, hostname, pathQuery: path } = sent);
    }
    const now = this.#decideNow(href, origin, hostname, path, pathStart, plain);
    if (now !== undefined) return Promise.resolve(now);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const loaded = this.#load(origin, hostname, false, via, lease).then((e) => this.#decide(e, href, origin, hostname, path, pathStart, plain));
    return signal ? unlessAborted(loaded, signal, (): never => { throw signal.reason; }) : loaded;
  }

  /**
   * The decision for `url` from what this gate holds now, without any I/O: the one `check` would
   * give (an exempt URL's included), or undefined when the origin's robots.txt is not loaded (or
   * has expired). For refusing work up front (a crawler's enqueue) without fetching a robots.txt
   * per new origin there, and for a door that answers in the same tick (the DevTools endpoint's
   * paused requests); `check` is the one to ask when this is undefined. Publishes on
   * `robots-gate:decision` like `check`.
   * @throws never: a URL that does not parse as http(s) gives undefined.
   */
  peek(url: string | URL): Decision | undefined {
    // A URL string already in canonical form is split where it lies, as check() does: no URL object.
    if (typeof url === 'string' && splitCanonicalUrl(url)) return this.#decideNow(url, splitOrigin, splitHostname, url, splitPathStart, splitPlain);
    let u: URL;
    try {
      u = parseHttpUrl(url);
    } catch {
      return undefined;
    }
    const { href, origin, hostname, pathQuery } = sentUrl(u);
    return this.#decideNow(href, origin, hostname, pathQuery, 0, false);
  }

  /** The decision when it takes no I/O (exempt, or a warm origin), else undefined; arguments as #decide's. */
  #decideNow(href: string, origin: string, hostname: string, path: string, pathStart: number, plain: boolean): Decision | undefined {
    if (this.#pol.isExempt(href, origin, hostname)) return this.#exemptDecision(href, origin);
    const entry = this.#local.get(origin);
    // A copy being refreshed is the one the caller suspects: wait for the refetch (its flight).
    if (entry === undefined || entry.expiresAt <= Date.now() || (this.#refreshing.size !== 0 && this.#refreshing.has(origin))) return undefined;
    return this.#decide(entry, href, origin, hostname, path, pathStart, plain);
  }

  /**
   * Fetch-compatible: sends `input` with this gate's User-Agent, follows redirects hop by hop and
   * checks every hop against its own origin's robots.txt first. Each hop waits for its own host's
   * slot (one request in flight per host, the host's interval after the last response ended,
   * FIFO), and holds it until its response body has been read or cancelled: read or cancel it.
   * `init.signal` aborts a wait too (nothing is sent).
   * @throws (rejects) RobotsBlockedError before any byte goes to a disallowed URL (reason
   *   `crawl-delay-too-long` for a host whose Crawl-delay is over maxCrawlDelayMs); TypeError for a
   *   bad URL; TooManyRedirectsError (a TypeError) past `init.maxRedirects` (default 20); the
   *   signal's reason; GateClosedError (code `ERR_GATE_CLOSED`) when gate.close() ends its wait
   *   for a slot, or when it needs a slot after gate.close(); whatever fetch itself throws.
   */
  fetch(input: string | URL | { url: string }, init?: GateFetchInit): Promise<Response> {
    return gatedFetch(this.#door, input, init);
  }

  /**
   * An undici interceptor: `new Agent().compose(gate.interceptor())`. Every request through it is
   * checked first (with the User-Agent header set to this gate's), then waits for its host's slot
   * as gate.fetch does; a blocked one fails with RobotsBlockedError and is never sent. The
   * robots.txt requests it needs go out through the dispatcher it is composed onto (its proxy, TLS,
   * resolve entries), spaced like any other. A request's signal aborts its wait.
   */
  interceptor(): Dispatcher.DispatcherComposeInterceptor {
    return gateInterceptor(this.#door);
  }

  /**
   * Refetch an origin's robots.txt now, whatever the cache says; a different sha256 publishes a
   * policy-change. Checks of that origin made while it runs wait for this fetch (and `peek`
   * gives undefined), so none is decided on the copy being replaced.
   * @param originOrUrl an origin or any URL on it.
   */
  async refresh(originOrUrl: string | URL): Promise<void> {
    const u = parseHttpUrl(originOrUrl);
    const origin = u.origin;
    this.#refreshing.set(origin, (this.#refreshing.get(origin) ?? 0) + 1);
    try {
      await this.#load(origin, u.hostname, true, undefined);
    } finally {
      const n = this.#refreshing.get(origin)! - 1;
      if (n === 0) this.#refreshing.delete(origin);
      else this.#refreshing.set(origin, n);
    }
  }

  /**
   * The interval (ms) a request to `url`'s host keeps after the last response from it ended, on
   * this gate's terms: max(Crawl-delay from the cached policy, `minIntervalMs` × jitter drawn anew,
   * the override interval while the host is under override). For a door outside the gate that
   * takes the host's slot from `gate.limiter` itself (robots-gate/crawlee), so one set of terms
   * spaces every request. @throws TypeError for a URL that does not parse.
   */
  intervalFor(url: string | URL): Interval {
    const u = parseHttpUrl(url);
    return this.#pol.interval(u.origin, u.hostname);
  }

  /**
   * When a host may next be sent a request after a response from it with status 429 or 503 ended
   * at `endedAt` (ms since epoch, default now), on this gate's terms: its Retry-After (RFC 9110
   * §10.2.3, seconds or an HTTP-date, read strictly), else `defaultBackoffMs`; at most
   * `maxBackoffMs`. For a door outside the gate that releases the host's slot itself
   * (robots-gate/browser, robots-gate/crawlee), so a back-off is the same wherever the 503 came in.
   * @param retryAfter the header's value as `headers.get()` gives it (null when absent) or as Node
   *   gives it (a list: the first); anything else is no usable value.
   * @returns ms since epoch. @throws TypeError when `endedAt` is not a finite number.
   */
  backoffUntil(retryAfter: string | readonly string[] | null | undefined, endedAt: number = Date.now()): number {
    if (!Number.isFinite(endedAt)) throw new TypeError(`backoffUntil: endedAt must be ms since the epoch, got ${String(endedAt)}`);
    const value = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    return backoffUntil(typeof value === 'string' ? value : undefined, endedAt, this.#o.defaultBackoffMs, this.#o.maxBackoffMs);
  }

  /** Has `host` had an overridden decision in this run (or, with a shared store, in the fleet)?
   *  @param host a host name (`URL.hostname`), or `URL.host`: a port is ignored. */
  isUnderOverride(host: string): boolean {
    // No host under override (nearly every crawl): no host name to normalise (domainToASCII was
    // 3 % of a fast crawl's main thread, twice per URL).
    if (this.#underOverride.size === 0) return false;
    return this.#underOverride.has(host) || this.#underOverride.has(hostOnly(host));
  }

  /**
   * Close the dispatcher and store the gate created itself (not ones passed in). Requests still
   * waiting for their host's slot (gate.fetch, the interceptor, the robots.txt requests of their
   * checks) are not sent: they reject with GateClosedError (code `ERR_GATE_CLOSED`), gate.fetch's
   * as `err` itself, an interceptor request's as the error undici passes on. Requests already sent
   * run to their end; the gate is not to be used after close: a request made after it that needs a
   * slot rejects with a GateClosedError saying it was refused.
   */
  async close(): Promise<void> {
    this.#pol.close(new GateClosedError());
    if (this.#ownDispatcher) await this.#dispatcher.close();
    if (this.#ownStore) await this.#store.close();
    this.#local.clear();
  }

  /** The decision on `entry`'s rules for path[pathStart, end), the URL's path and query; `plain`: they
   *  are in the matcher's normal form (splitPlain), else the matcher brings them to it. */
  #decide(entry: Entry, url: string, origin: string, hostname: string, path: string, pathStart: number, plain: boolean): Decision {
    let allowed: boolean;
    let reason: DecisionReason;
    let rule = null;
    let group = null;
    let usage: UsageVerdict | undefined;
    const record = entry.record;
    const pathLength = path.length - pathStart;
    if (pathLength === 11 && path.startsWith('/robots.txt', pathStart)) {
      // §2.2.2: the /robots.txt URI is implicitly allowed.
      allowed = true;
      reason = 'robots-txt';
    } else if (record.kind === 'parsed') {
      const policy = entry.policy!;
      const m = plain ? policy.checkNormal(path, pathStart, path.length) : policy.check(pathStart === 0 ? path : path.slice(pathStart));
      allowed = m.allowed;
      rule = m.rule;
      group = m.group;
      reason = rule === null ? 'no-matching-rule' : allowed ? 'allowed-by-rule' : 'disallowed-by-rule';
    } else if (record.kind === 'unavailable') {
      allowed = true;
      reason = record.redirectLimit ? 'too-many-redirects' : 'unavailable';
    } else {
      allowed = false;
      reason = 'unreachable';
    }
    let overridden = false;
    if (!allowed && (this.#overrideAll || this.#overrideHosts.has(hostname))) {
      allowed = true;
      overridden = true;
      reason = 'overridden';
      this.#markOverride(hostname);
    }
    // Usage lines apply only to what may be crawled (aipref attach draft), an overridden URL
    // included: an override lifts access, and the uses the file reserves still hold (an overridden
    // URL carried no verdict, so --purpose kept what the file reserved). Most files have none.
    if (allowed && reason !== 'robots-txt' && entry.usage !== null) {
      usage = usageVerdict(signalsFromRobots(entry.usage.usage(path.slice(pathStart), entry.token), entry.stamp.robotsUrl));
    }
    // After override on purpose: an override is a right to fetch, not a licence for a use the site reserves.
    const purpose: Purpose | undefined = this.#o.purpose;
    // The TDMRep file is a reservation, not content: reading it is how a reserved use is learned.
    if (allowed && usage !== undefined && purpose !== undefined && isReserved(usage, purpose) && !(pathLength === TDMREP_PATH.length && path.startsWith(TDMREP_PATH, pathStart))) {
      allowed = false;
      reason = 'usage-reserved';
    }
    const decision: Decision = {
      url,
      origin,
      allowed,
      reason,
      rule,
      group,
      policy: entry.stamp,
      stale: entry.stale,
      overridden,
      // Always present (undefined without a Crawl-delay): one object shape for every decision.
      crawlDelaySeconds: entry.crawlDelaySeconds,
      productToken: entry.token,
      usage,
    };
    if (decisionChannel.hasSubscribers) decisionChannel.publish(decision);
    return decision;
  }

  /** A decision for an exempt URL: published like any, with no robots.txt behind it. */
  #exemptDecision(url: string, origin: string): Decision {
    const now = new Date().toISOString();
    const decision: Decision = {
      url,
      origin,
      allowed: true,
      reason: 'exempt',
      rule: null,
      group: null,
      policy: { robotsUrl: robotsUrlOf(origin), finalUrl: '', status: 'exempt', sha256: null, fetchedAt: now, expiresAt: now, sitemaps: [] },
      stale: false,
      overridden: false,
      crawlDelaySeconds: undefined,
      productToken: this.#tokens[0]!,
      usage: undefined,
    };
    if (decisionChannel.hasSubscribers) decisionChannel.publish(decision);
    return decision;
  }

  #markOverride(host: string): void {
    if (this.#underOverride.has(host)) return;
    this.#underOverride.add(host);
    // The mark is for the politeness layer (and the fleet); a store failure must not fail the decision.
    this.#store.markOverride(host).catch(() => {});
    this.emit('override', host);
  }

  /** Load `origin` once however many callers ask; `force` refetches even a fresh copy.
   *  @param via the dispatch function robots.txt goes through (the interceptor's), else the gate's.
   *  @param lease the starting caller's lease on the host (CheckOptions.lease). */
  #load(origin: string, hostname: string, force: boolean, via: Dispatcher.Dispatch | undefined, lease?: Lease): Promise<Entry> {
    const inFlight = this.#flights.get(origin);
    if (inFlight !== undefined && !force) return inFlight;
    const flight = (async () => {
      if (inFlight !== undefined) await inFlight.catch(() => {});
      const local = this.#local.get(origin);
      const stored = (await this.#store.get(origin)) as GatePolicyRecord | undefined;
      if (this.#overrideAll || this.#overrideHosts.has(hostname)) {
        if (await this.#store.isUnderOverride(hostname)) this.#underOverride.add(hostname);
      }
      const seen = local?.record ?? stored;
      if (!force && stored !== undefined && stored.expiresAt > Date.now()) return this.#install(stored, seen);
      const record = (await this.#store.singleFlight(
        origin,
        () => this.#fetchRecord(origin, force, local?.record, stored, via, lease),
        this.#o.timeoutMs * 2,
      )) as GatePolicyRecord;
      return this.#install(record, seen);
    })();
    const tracked = flight.finally(() => {
      if (this.#flights.get(origin) !== tracked) return;
      this.#flights.delete(origin);
      this.#redirects.loadEnded(origin);
    });
    this.#flights.set(origin, tracked);
    return tracked;
  }

  /** The loader run under single flight: fetch, and fold the outcome into the record in force. */
  async #fetchRecord(
    origin: string,
    force: boolean,
    local: GatePolicyRecord | undefined,
    stored: GatePolicyRecord | undefined,
    via: Dispatcher.Dispatch | undefined,
    lease: Lease | undefined,
  ): Promise<GatePolicyRecord> {
    let previous = newest(withBody(local, stored), stored);
    if (!force) {
      // Someone sharing the store may have loaded it between our get() and this flight.
      const now = (await this.#store.get(origin)) as GatePolicyRecord | undefined;
      if (now !== undefined && now.expiresAt > Date.now()) return now;
      previous = newest(previous, now);
    }
    const brought = this.#redirects.broughtFor(origin);
    if (brought !== undefined) return brought;
    const own = this.#redirects.ownFetch(origin);
    let result: RobotsFetchResult;
    try {
      result = await fetchRobotsTxt(origin, {
        // robots.txt requests take their host's slot too (each redirect hop its own host's).
        dispatcher: this.#pol.under(via ? this.#pol.robotsVia(via) : this.#robotsDispatcher, lease),
        userAgent: this.userAgent,
        timeoutMs: this.#o.timeoutMs,
        maxBytes: this.#o.maxBytes,
        maxRedirects: this.#o.maxRedirects,
        signal: own.signal,
        // gate.refresh() asks the server, whatever is cached.
        ...(force ? {} : { cachedHop: (url: string) => this.#redirects.cachedHop(origin, url) }),
      });
    } finally {
      own.end();
    }
    const adopted = own.adopted();
    if (adopted !== undefined) return adopted;
    // A request cancelled by close() says nothing about the server: nothing is recorded for it.
    if (this.#pol.closed && result.kind === 'unreachable') throw new GateClosedError();
    if (fetchChannel.hasSubscribers) {
      const { bytes: _bytes, ...rest } = result;
      fetchChannel.publish({ origin, result: rest });
    }
    this.#redirects.adopt(origin, result);
    return recordFromFetch(origin, result, previous, this.#o);
  }

  /** Parse a record into a local entry, and publish what changed since `seen`. */
  #install(record: GatePolicyRecord, seen: GatePolicyRecord | undefined): Entry {
    const current = this.#local.peek(record.origin);
    if (current !== undefined && sameRecord(current.record, record)) return current;
    const entry = entryFor(record, this.#tokens, this.#o.maxBytes);
    this.#local.set(record.origin, entry);
    this.emit('policy', record);
    if (seen !== undefined) this.#publishChange(seen, record);
    return entry;
  }

  #publishChange(before: GatePolicyRecord, after: GatePolicyRecord): void {
    const newSha = observedSha256(after);
    if (newSha === undefined) return; // an outage behind a kept copy is not a new policy
    const oldSha = before.stale && before.vanished ? null : before.sha256;
    if (oldSha === newSha) return;
    const change: PolicyChange = {
      origin: after.origin,
      oldSha256: oldSha,
      newSha256: newSha,
      at: new Date(after.fetchedAt).toISOString(),
      oldStatus: before.stale ? (before.lastStatus ?? before.status) : before.status,
      newStatus: after.stale ? (after.lastStatus ?? after.status) : after.status,
    };
    if (policyChangeChannel.hasSubscribers) policyChangeChannel.publish(change);
    this.emit('policy-change', change);
  }
}

/** A URL as the request carries it, and as a decision records it. */
interface SentUrl {
  href: string;
  origin: string;
  hostname: string;
  /** What the rules match (RFC 9309 §2.2.2). */
  pathQuery: string;
}

/**
 * `u` without userinfo or fragment. A decision is a record (events, audit rows, error messages):
 * credentials in the userinfo must not end up there, and they play no part in the verdict. The
 * fragment is cut at its `#`, not by `u.hash`, which is '' for a lone `#` as for none: `/x?#` is
 * sent as `/x?`, and an empty query (`/x?`) stays, since the URL as sent is what the rules match.
 */
function sentUrl(u: URL): SentUrl {
  if (u.username !== '' || u.password !== '') {
    u = new URL(u.href);
    u.username = '';
    u.password = '';
  }
  // Serialised, a URL has no `#` before its fragment's (one in the path or query is escaped).
  const hash = u.href.indexOf('#');
  const href = hash < 0 ? u.href : u.href.slice(0, hash);
  return { href, origin: u.origin, hostname: u.hostname, pathQuery: u.pathname + (u.search || (href.endsWith('?') ? '?' : '')) };
}

/** The error a door throws for `d`, or undefined when it may be sent. */
function blockedFor(d: Decision, pol: GatePoliteness): RobotsBlockedError | undefined {
  if (!d.allowed) return new RobotsBlockedError(d);
  if (pol.tooLong(d.crawlDelaySeconds)) return new RobotsBlockedError({ ...d, allowed: false, reason: 'crawl-delay-too-long' });
  return undefined;
}

