// Politeness for navigations: a document request (a frame's navigation, and each of its redirect
// hops, against its own host) that the gate allowed waits for its host's slot before it is let go,
// and holds the slot until that document's response has ended, as gate.fetch does. The
// slot is the gate's: its RateLimiter through the one Pacer per limiter (FIFO per host, shared
// with gate.fetch, the interceptor and the gate's robots.txt requests), so a navigation to a fresh
// host waits its interval after the robots.txt request its decision needed. Subresources are
// gated and counted elsewhere, not spaced.
//
// The end of a document's response is not one DevTools event on the sessions the gate has: the
// earliest of these counts, each no earlier than the real end:
// - its next redirect hop pausing (the redirect response was read);
// - its response-stage pause with a network error or a status without a body (204, 205, 304);
// - `Page.lifecycleEvent` DOMContentLoaded of its loader (the parser has read the whole body;
//   a navigation's Network requestId, which Fetch calls networkId, is its loaderId);
// - `Page.frameStoppedLoading` of its frame (a cancelled or failed navigation);
// - a new navigation of the same frame: the old one is given up, unless the frame committed it
//   and its body is still arriving (a page that navigates itself while its HTML streams). Chromium
//   goes on reading that body until the new document commits, so the new request waits for its
//   `Network.loadingFinished` (or loadingFailed), which the page's session hears with Network on;
//   DOMContentLoaded does not come then, for the parser is stopped;
// - the target gone (its page closed, the gate disposed), or HOLD_MS without any of these.
// A navigation that becomes a download goes on in the browser after its frame stopped loading:
// `Page.downloadWillBegin` (Chromium sends it just after the frame's stop) takes the host's slot
// back for the download, and `Page.downloadProgress` completed or canceled ends it (both are sent
// to any session with Page enabled, whatever download behaviour the driver set), or HOLD_MS: the
// page's end does not, for the browser carries the download on without it.
import { hostKeyOf } from '../fetcher/url.js';
import { backoffUntil } from '../gate/pace.js';
import { DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS } from '../gate/options.js';
import type { Interval } from '../politeness/interval.js';
import { pacerFor, waitChannel, type Pacer, type Slot, type WaitEvent } from '../politeness/pacer.js';
import type { Decision } from '../gate/types.js';
import type { Lease, RateLimiter } from '../stores/types.js';
import type { GateOptions, NavigationWait, TakenSlot } from './types.js';

/** What navigation pacing needs of a gate: a `RobotsGate` has both. */
export interface PacingGate {
  readonly limiter: RateLimiter;
  intervalFor(url: string, decision?: Decision): Interval;
  /** The end (ms since epoch) of a 429/503 back-off on the gate's terms (RobotsGate.backoffUntil);
   *  absent: the gate's defaults. */
  backoffUntil?(retryAfter: string | undefined, endedAt: number): number;
}

/** A document's slot is given back after this long (ms) whatever happened: a page that streams
 *  its HTML for ever must not stall its host for the run. */
export const HOLD_MS = 60_000;

interface Held {
  /** The document's key: its networkId, or Fetch's own id until the frame commits it (committed). */
  key: string;
  readonly url: string;
  readonly frameId: string;
  readonly slot: Pick<Slot, 'release'>;
  readonly timer: NodeJS.Timeout;
  /** Stops listening to the target's end. */
  readonly unlisten: () => void;
  /** No request to the host before this (ms since epoch): a 429/503 back-off. */
  notBefore?: number;
  /** The frame committed it: its document is being read (committed()). */
  committed?: boolean;
  /** Its body has been read to the end, or failed (Network.loadingFinished / loadingFailed). */
  loaded?: boolean;
  /** Called once it is loaded or dropped: navigations of its frame waiting for that (hold). */
  readonly waiters: Array<() => void>;
}

/**
 * The navigation slots taken from one limiter in this process, by document (networkId). One per
 * limiter, so that two handles gating one page (each pausing the same navigation in its own
 * session) take its host's slot once, not twice: the second would wait for the first for ever.
 */
export class NavigationSlots {
  readonly #pacer: Pacer;
  readonly #held = new Map<string, Held>();
  readonly #byFrame = new Map<string, string>();
  /** Downloads whose host's slot is being claimed back for them, and those of them that ended
   *  meanwhile (nothing else is kept of a download that is not held). */
  readonly #claiming = new Set<string>();
  readonly #ended = new Set<string>();

  constructor(limiter: RateLimiter) {
    this.#pacer = pacerFor(limiter);
  }

  /**
   * Hold `url`'s host slot for document `key` (a navigation's networkId) of frame `frameId`:
   * resolves once it is held (at once when `key` holds it for this very URL already). What `key`
   * held for an earlier hop, and what another navigation of the frame held, is released first.
   * @param signal the target's lifetime: its abort ends a wait (nothing held then) or, later, the
   *   document's hold.
   * @param within a lease on the host the caller holds (GateOptions.heldSlots): taken under it.
   * @param taken the host's slot the caller took for this very document (GateOptions.heldSlots):
   *   held as its own, without waiting.
   * @returns the interval the slot was taken under, for the audit; null when no slot was taken
   *   here (`key` held it already, another session took it meanwhile, or the caller's `taken`).
   * @throws (rejects) the signal's reason when `signal` aborts first (the target is gone).
   */
  async hold(key: string, frameId: string, url: string, interval: () => Interval, signal: AbortSignal, within?: Lease, taken?: TakenSlot): Promise<NavigationWait | null> {
    const known = this.#held.get(key);
    if (known?.url === url) return null;
    this.end(key);
    const other = this.#byFrame.get(frameId);
    if (other !== undefined) {
      await this.#loadedOrGone(other, signal);
      this.end(other);
    }
    let wait: NavigationWait | null = null;
    let slot: Pick<Slot, 'release'>;
    if (taken) slot = adopted(taken);
    else {
      const iv = interval();
      const heard = hearWait(url);
      let took: Slot;
      try {
        took = await this.#pacer.take(new URL(url).host, iv, signal, url, within);
      } finally {
        heard.stop();
      }
      slot = took;
      wait = { reason: heard.event?.reason ?? iv.reason, intervalMs: iv.ms, waitedMs: took.waitedMs };
    }
    // Gone meanwhile, or held for this hop by another session: nothing was sent under this slot,
    // so it goes back uncounted.
    if (signal.aborted || this.#held.get(key)?.url === url) {
      slot.release(0).catch(() => {});
      if (signal.aborted) throw signal.reason;
      return null;
    }
    this.end(key);
    // By the entry, not the key: committed() may re-key it.
    const h: Held = { key, url, frameId, slot, waiters: [], timer: setTimeout(() => this.end(h.key), HOLD_MS), unlisten: () => signal.removeEventListener('abort', onGone) };
    h.timer.unref();
    const onGone = () => this.end(h.key);
    signal.addEventListener('abort', onGone, { once: true });
    this.#held.set(key, h);
    this.#byFrame.set(frameId, key);
    return wait;
  }

  /**
   * Frame `frameId` committed the document of loader `loaderId` (Page.frameNavigated): the slot its
   * navigation holds is that loader's from now on, so that its DOMContentLoaded ends it. Fetch
   * names a navigation by its networkId only while some session has the Network domain on; without
   * it the key was Fetch's own id, no DOMContentLoaded matched, and the slot was held until the
   * frame stopped loading, which a same-host iframe (waiting for that very slot) held off until
   * HOLD_MS: 60 s for the host, the iframe never loaded.
   */
  committed(frameId: string, loaderId: string): void {
    const key = this.#byFrame.get(frameId);
    if (key === undefined) return;
    const h = this.#held.get(key);
    if (h === undefined) return;
    if (key === loaderId) {
      h.committed = true;
      return;
    }
    if (this.#held.has(loaderId)) return;
    h.committed = true;
    this.#held.delete(key);
    h.key = loaderId;
    this.#held.set(loaderId, h);
    this.#byFrame.set(frameId, loaderId);
  }

  /**
   * Document `key` paused at `url` before its decision. Another hop: the one before it has ended
   * (its redirect response was read). The same hop: another session (a second handle on the page)
   * let it go already and this one decides it now; until it leaves, the slot goes back without
   * counting, for this session's decision may need a robots.txt request to the very host.
   */
  paused(key: string, url: string): void {
    const h = this.#held.get(key);
    if (h) this.#drop(key, h, h.url === url ? 0 : Date.now() + 1, h.url === url ? undefined : h.notBefore);
  }

  /** Document `key`'s body has been read to the end, or failed (its Network requestId, which is
   *  its networkId): a new navigation of its frame no longer waits for it. */
  loaded(key: string): void {
    const h = this.#held.get(key);
    if (h === undefined) return;
    h.loaded = true;
    wake(h);
  }

  /** Resolves once document `key`, committed and still loading, has loaded or is no longer held
   *  (at once otherwise), or `signal` aborts. */
  #loadedOrGone(key: string, signal: AbortSignal): Promise<void> {
    const h = this.#held.get(key);
    if (h === undefined || !h.committed || h.loaded || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      h.waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Document `key` was answered 429 or 503: no request to its host before `until` (ms since
   *  epoch; NavigationPace.backoff reads it off the response) once its response has ended. */
  backoff(key: string, until: number): void {
    const h = this.#held.get(key);
    if (h) h.notBefore = until;
  }

  /** Document `key`'s response has ended (now): its host's interval runs from here. */
  end(key: string): void {
    const h = this.#held.get(key);
    // Date.now() rounds down: +1 so the interval is never measured from before the real end.
    if (h) this.#drop(key, h, Date.now() + 1, h.notBefore);
  }

  #drop(key: string, h: Held, endedAt: number, notBefore?: number): void {
    this.#held.delete(key);
    wake(h);
    if (this.#byFrame.get(h.frameId) === key) this.#byFrame.delete(h.frameId);
    clearTimeout(h.timer);
    h.unlisten();
    // A limiter failing (Redis gone) must not fail the page.
    h.slot.release(endedAt, notBefore).catch(() => {});
  }

  /**
   * Frame `frameId`'s navigation to `url` became download `guid` (Page.downloadWillBegin): the host
   * is held until the download ends (downloadEnded) or HOLD_MS. Not until its page closes:
   * Chromium carries a download on after its tab is gone, and no event of the page's then says
   * when it ends, so a page closed mid-download leaves the host held until HOLD_MS. The
   * navigation's own slot when it is still held; else, its end counted already (the frame
   * stopped loading first), the host's slot is claimed back at once, unless another request holds
   * it by now.
   */
  async downloadBegan(frameId: string, guid: string, url: string): Promise<void> {
    const key = downloadKey(guid);
    // Two sessions on one page (two handles) both hear of it: the first takes it.
    if (this.#held.has(key) || this.#claiming.has(key)) return;
    const host = hostKeyOf(url);
    if (host === '') return;
    const navigation = this.#byFrame.get(frameId);
    const h = navigation === undefined ? undefined : this.#held.get(navigation);
    if (h !== undefined && navigation !== undefined && hostKeyOf(h.url) === host) {
      // The frame goes on without it (a new navigation of the frame does not end the download),
      // and so does the browser without its page.
      this.#held.delete(navigation);
      this.#byFrame.delete(frameId);
      h.unlisten();
      clearTimeout(h.timer);
      wake(h);
      const d: Held = { ...h, key, frameId: '', unlisten: noop, waiters: [], timer: setTimeout(() => this.end(d.key), HOLD_MS) };
      d.timer.unref();
      this.#held.set(key, d);
      return;
    }
    let slot: Slot | undefined;
    this.#claiming.add(key);
    try {
      slot = await this.#pacer.claimSent(host);
    } catch {
      // The limiter gone (Redis): nothing to hold.
    } finally {
      this.#claiming.delete(key);
    }
    // Ended while the claim was asked.
    const ended = this.#ended.delete(key);
    if (slot === undefined) return;
    if (ended) {
      slot.release(Date.now() + 1).catch(() => {});
      return;
    }
    const d: Held = { key, url, frameId: '', slot, waiters: [], timer: setTimeout(() => this.end(d.key), HOLD_MS), unlisten: noop };
    d.timer.unref();
    this.#held.set(key, d);
  }

  /** Download `guid` completed or was cancelled (Page.downloadProgress): its host's interval runs
   *  from now. */
  downloadEnded(guid: string): void {
    const key = downloadKey(guid);
    if (this.#held.has(key)) this.end(key);
    else if (this.#claiming.has(key)) this.#ended.add(key);
  }

  /** Frame `frameId` stopped loading: whatever navigation it held has ended. */
  endFrame(frameId: string): void {
    const key = this.#byFrame.get(frameId);
    if (key !== undefined) this.end(key);
  }
}

const downloadKey = (guid: string): string => `download:${guid}`;

/** Lets the navigations waiting for `h` (NavigationSlots' #loadedOrGone) go on. */
function wake(h: Held): void {
  for (const go of h.waiters.splice(0)) go();
}
const noop = (): void => {};

/** Navigations waiting in a Pacer now, by URL, oldest first: each gets the wait the Pacer publishes
 *  for it. The Pacer says on `robots-gate:wait` whether a take really waited and why (`backoff`
 *  when a 429/503 of any door held the host), which its Slot does not carry. The Pacer's queue is
 *  FIFO per host, and it publishes a waiter's event just before granting it: the oldest listener
 *  of a URL is the one granted. */
const listening = new Map<string, Array<{ event: WaitEvent | undefined }>>();
const onWait = (m: unknown): void => {
  const ev = m as WaitEvent;
  if (ev.url === undefined) return;
  const l = listening.get(ev.url)?.find((x) => x.event === undefined);
  if (l) l.event = ev;
};

/** Listens for the wait the Pacer publishes for `url`'s next take; stop() once it is granted. */
function hearWait(url: string): { readonly event: WaitEvent | undefined; stop(): void } {
  const l: { event: WaitEvent | undefined } = { event: undefined };
  if (listening.size === 0) waitChannel.subscribe(onWait);
  let list = listening.get(url);
  if (list === undefined) listening.set(url, (list = []));
  list.push(l);
  return {
    get event() {
      return l.event;
    },
    stop() {
      const i = list.indexOf(l);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0 && listening.get(url) === list) listening.delete(url);
      if (listening.size === 0) waitChannel.unsubscribe(onWait);
    },
  };
}

/** A slot the caller took, released as the Pacer's are (a promise that may reject). */
function adopted(taken: TakenSlot): Pick<Slot, 'release'> {
  return { release: async (endedAt, notBefore) => void (await taken.release(endedAt, notBefore)) };
}

const registries = new WeakMap<RateLimiter, NavigationSlots>();

/** The navigation slots of `limiter` in this process. */
export function navigationSlots(limiter: RateLimiter): NavigationSlots {
  let s = registries.get(limiter);
  if (s === undefined) {
    s = new NavigationSlots(limiter);
    registries.set(limiter, s);
  }
  return s;
}

/** What gateTarget uses to space a target's navigations (see TargetGateOptions.pace). */
export interface NavigationPace {
  readonly slots: NavigationSlots;
  interval(url: string, decision?: Decision): Interval;
  /** Document `key`'s response (now) was a 429 or 503 with `retryAfter`: its host backs off on the
   *  gate's terms (RFC 9110 §10.2.3, read strictly; else its `defaultBackoffMs`, at most its `maxBackoffMs`). */
  backoff(key: string, retryAfter: string | undefined): void;
  /** Holds document `key` at `url` (frame `frameId`, allowed by `decision`) as NavigationSlots.hold
   *  does, unless the caller serves it itself (GateOptions.heldSlots.served: nothing to hold); in
   *  the slot the caller took for it (`taken`), or under the caller's lease on the host when it
   *  has one. Resolves with the interval its slot was taken under (null: none taken here). */
  hold(key: string, frameId: string, url: string, signal: AbortSignal, decision?: Decision): Promise<NavigationWait | null>;
}

/**
 * Navigation pacing on `gate`'s terms, or undefined when it is off: `politeness: false`, or a
 * gate without a limiter (a BrowserGate that is not a RobotsGate).
 */
export function navigationPace(gate: Partial<PacingGate>, politeness: boolean | undefined, held?: GateOptions['heldSlots']): NavigationPace | undefined {
  if (politeness === false || gate.limiter === undefined || typeof gate.intervalFor !== 'function') return undefined;
  const g = gate as PacingGate;
  const slots = navigationSlots(g.limiter);
  const interval = (url: string, decision?: Decision) => g.intervalFor(url, decision);
  // Date.now() rounds down: +1 so the back-off is never counted from before the real end.
  const until = (retryAfter: string | undefined, endedAt: number) =>
    g.backoffUntil ? g.backoffUntil(retryAfter, endedAt) : backoffUntil(retryAfter, endedAt, DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS);
  return {
    slots,
    interval,
    backoff: (key, retryAfter) => slots.backoff(key, until(retryAfter, Date.now() + 1)),
    hold: async (key, frameId, url, signal, decision) => {
      if (held?.served?.(url)) return null;
      return slots.hold(key, frameId, url, () => interval(url, decision), signal, held?.lease?.(new URL(url).host), held?.taken?.(url));
    },
  };
}
