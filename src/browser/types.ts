// Shapes for gating a Playwright page or context. Only `import type` from playwright-core here:
// the types vanish at run time, so nothing in the library needs playwright-core installed.
import type { EventEmitter } from 'node:events';
import type { Page, Request } from 'playwright-core';
import type { Decision } from '../gate/types.js';
import type { Interval } from '../politeness/interval.js';
import type { WaitReason } from '../politeness/types.js';
import type { Lease, RateLimiter } from '../stores/types.js';

/** What gatePage needs from a gate: a `RobotsGate` fits. */
export interface BrowserGate {
  check(url: string | URL): Promise<Decision>;
  /** The decision without I/O, or undefined when `check` must be asked (a `RobotsGate`'s): with
   *  it a warm origin's paused request is answered in the handler of its pause. */
  peek?(url: string): Decision | undefined;
  /** The User-Agent the gate decides for; the browser is made to send the same one. */
  readonly userAgent?: string;
  /** Where each host's slot is kept: with `intervalFor`, navigations are spaced on the gate's
   *  terms (a gate without both: they are not). */
  readonly limiter?: RateLimiter;
  /** The interval (ms) for `url`'s host now (Crawl-delay, floor with jitter, override);
   *  `decision`: the one just made for `url`, for terms read from it. */
  intervalFor?(url: string, decision?: Decision): Interval;
  /** The end (ms since epoch) of the back-off after a 429/503 navigation, on the gate's terms
   *  (`defaultBackoffMs`, `maxBackoffMs`); absent: the gate's defaults (10 s, at most an hour). */
  backoffUntil?(retryAfter: string | undefined, endedAt: number): number;
}

/** A host's slot a caller took itself for a navigation it is about to make (see
 *  GateOptions.heldSlots.taken). */
export interface TakenSlot {
  /** The document's response ended at `endedAt` (ms since epoch); `notBefore`: a 429/503
   *  back-off (ms since epoch). Only the first call counts. */
  release(endedAt: number, notBefore?: number): unknown;
}

/** The host interval a navigation was let go under (GatedRequest.wait). */
export interface NavigationWait {
  /** The interval's largest term (`crawl-delay`, `floor`, `override`), or `backoff` when the
   *  Pacer held the host longer for a 429/503 back-off. */
  readonly reason: WaitReason;
  /** The gap kept after the host's previous response ended (ms). */
  readonly intervalMs: number;
  /** How long the navigation waited for the slot (ms); about 0 when the interval had passed. */
  readonly waitedMs: number;
}

/** One request the gate decided, as emitted on `allowed` and `blocked`. `R` and `P` are the
 *  driver's request and page types (Playwright's by default; robots-gate/puppeteer passes its own). */
export interface GatedRequest<R = Request, P = Page> {
  /** The URL checked (for a redirect hop: the hop's target). */
  readonly url: string;
  readonly method: string;
  /** Playwright's resource type: `document`, `script`, `stylesheet`, `image`, `fetch`, `xhr`, `websocket`, … */
  readonly resourceType: string;
  /** True for a frame's own navigation (main frame or iframe) and its redirect hops. */
  readonly isNavigation: boolean;
  /** URL of the frame that made the request (the page it belongs to); '' when unknown. */
  readonly frameUrl: string;
  /** For a redirect hop: the URL that answered with the redirect. */
  readonly redirectedFrom: string | null;
  /** The gate's decision; null when the gate threw (then `error` says why, and the request was blocked). */
  readonly decision: Decision | null;
  readonly error: Error | null;
  /** ISO 8601 time of the decision. */
  readonly at: string;
  /** ISO 8601 time the request was let go (Fetch.continueRequest sent): for a paced navigation,
   *  once its host's slot was taken, after `wait`; else the decision's time. Absent when it was
   *  blocked, or when its page went away while it waited (nothing was sent). */
  readonly sentAt?: string;
  /** The host interval a paced navigation was let go under; null or absent when it took no slot
   *  here (not a navigation, politeness off, served or slotted by the caller: GateOptions.heldSlots). */
  readonly wait?: NavigationWait | null;
  /** Playwright's request for this very hop, when Playwright reported it: always for an allowed
   *  request while someone listens to `allowed` (its `response()` tells how it ended), mostly for
   *  a blocked one; null for a document and a WebSocket, and when Playwright never reported it. */
  readonly request: R | null;
  /** The page that made the request; null when unknown (a worker's request). */
  readonly page: P | null;
  /** DevTools' id of the frame that made the request (Network events carry the same one); absent
   *  for WebSocket handshakes and documents decided at the browser level. */
  readonly frameId?: string;
  /** DevTools' Network requestId of the request (the Fetch domain's networkId); absent as frameId. */
  readonly requestId?: string;
}

export interface GateOptions {
  /** User-Agent to send; default `gate.userAgent`. Requests carrying another one get this one instead. */
  userAgent?: string;
  /** Blocked requests kept in `handle.blocked` at most; older ones drop off (they were emitted
   *  already). Default 10,000; 0 for a long-lived context whose listeners keep what they need. */
  maxBlocked?: number;
  /**
   * Space navigations by each host's interval, as gate.fetch does (default true): every document
   * request the gate allows (a frame's navigation, each redirect hop against its own host) waits
   * for its host's slot on `gate.limiter` (FIFO, no error) and holds it until that document's
   * response has ended (its DOMContentLoaded, the next hop, its failure, its page closed; at most
   * 60 s). Subresources are gated, not spaced. `false` for a caller that takes the host's slot
   * from the same limiter itself for every navigation of the page: spacing again inside would wait
   * for the slot that caller holds. Crawl-delay and the override interval are then that caller's
   * to keep. A caller that holds slots for some of them says which in `heldSlots` instead
   * (`robots-gate crawl --browser`, robots-gate/crawlee).
   */
  politeness?: boolean;
  /**
   * For a caller that takes a host's slot on `gate.limiter` itself around a page and leaves the
   * page's other navigations to be spaced here (`robots-gate crawl --browser`).
   * `served(url)`: true for a document the caller serves from its own copy (a route that fulfills
   * it: nothing is sent, so it takes no slot); asked once per navigation, before it would wait.
   * `lease(host)`: the lease on `gate.limiter` the caller holds on `host` (a fleet frontier's, see
   * RateLimiter.tryAcquire `within`), for a navigation to `host` to go under it instead of waiting
   * for it.
   * `taken(url)`: the slot the caller took for the navigation it is making (robots-gate/crawlee,
   * before Crawlee's `page.goto`): the document at `url`, the first to pause that would wait, holds
   * that slot instead of waiting for another (one slot per request sent), and gives it back when
   * its response has ended, as it would its own; its redirect hops and the page's later
   * navigations wait for theirs. Asked after `served`, once per document that would wait.
   * Unused with `politeness: false`.
   */
  heldSlots?: {
    served?(url: string): boolean;
    lease?(host: string): Lease | undefined;
    taken?(url: string): TakenSlot | undefined;
  };
}

export interface GateHandleEvents<E = GatedRequest> {
  blocked: [E];
  allowed: [E];
}

/**
 * What gatePage / gateContext return. Emits `blocked` and `allowed` (a GatedRequest each) as the
 * decisions are made; `blocked` lists every blocked request so far.
 */
export interface GateHandle<E = GatedRequest> extends EventEmitter<GateHandleEvents<E>> {
  /** Blocked requests so far, oldest first (at most `maxBlocked`). */
  readonly blocked: readonly E[];
  /** Stop gating: ends the DevTools interception. Requests after this go out ungated. */
  dispose(): Promise<void>;
}
