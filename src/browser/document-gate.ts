// Documents (every frame's navigation and each of its redirect hops) are decided by one
// browser-level session that pauses documents only. With Playwright elsewhere (chromium.connect)
// it decides them all: without Playwright's server-side sessions no browser-level auto-attach can
// hold a new page (page-watch.ts). With Playwright in this process, and in Puppeteer's gate, the
// pages' own sessions decide their documents and this one is the net behind them: Chromium sends
// a new page's first request while the page waits for the debugger, so a popup's first navigation
// can leave before its own session intercepts (two `window.open()` at once on a loaded machine let
// the second go ungated 5 runs of 6), and it is decided here. A document a page session decided
// and let go pauses here too: it passes unasked (passedByPage), decided, spaced and reported once.
// This session sits after the pages' own sessions and after Playwright's routing, so a document
// the caller fulfills from a route never leaves the browser and is not reported here. It also
// catches a context's new pages at their first navigation: Playwright hands out a popup's Page
// only once it has started loading, too late for a page session. RFC 9309 §2.2.2 holds for a
// popup's URL as for any. Its cost: any Fetch pattern routes every request of every frame through
// Chromium's interception proxy, 0.1 to 0.15 of an ungated page load (bench/README.md).
import type { Browser } from 'playwright-core';
import type { Decision } from '../gate/types.js';
import { sessionChannel, type Channel } from './channel.js';
import type { Claim, TargetInfo } from './claim.js';
import type { NavigationPace } from './navigation-pace.js';
import { frameUrlOf, passedByPage, uaHeaders, type Verdict } from './target-gate.js';
import type { GatedRequest, NavigationWait } from './types.js';

/** What one gatePage / gateContext handle gives the browser-level session. */
export interface DocumentOwner {
  decide(url: string): Promise<Verdict>;
  record(entry: GatedRequest): void;
  disposed(): boolean;
  userAgent: string | undefined;
  /** Allowed documents wait for their host's slot (navigation-pace.ts); undefined: not spaced. */
  pace: NavigationPace | undefined;
  /** The handle's gated targets by targetId (a page's main frame id is its targetId). */
  claims: Map<string, Claim>;
  /** Gate a new page the handle `wants` over `channel`. */
  adopt: (targetId: string, channel: Channel) => Claim;
  /** Whether the handle gates this new page (one of its context's, its page's popup). */
  wants(target: TargetInfo): boolean;
  /** DevTools ids of the context, learned from its gated pages (Playwright does not expose it). */
  contexts: Set<string>;
  /** Settles when the pages handed out so far have their gating started (or failed). */
  settled(): Promise<unknown>;
}

interface DocumentPaused {
  requestId: string;
  networkId?: string;
  redirectedRequestId?: string;
  frameId: string;
  request: { url: string; method: string; headers: Record<string, string> };
}

class DocumentGate {
  private readonly owners = new Set<DocumentOwner>();
  /** Aborted when its owner unregisters: its documents stop waiting for a host's slot. */
  private readonly lifetimes = new Map<DocumentOwner, AbortController>();
  /** Fetch is on while anyone is registered: without owners no document waits for a round trip. */
  private enabled: Promise<unknown> | null = null;

  async add(owner: DocumentOwner): Promise<void> {
    this.owners.add(owner);
    this.lifetimes.set(owner, new AbortController());
    this.enabled ??= this.channel.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] });
    await this.enabled;
  }

  /** Documents paused and not yet let go or failed: Fetch.disable would release them unchecked. */
  private readonly inflight = new Set<Promise<void>>();

  async remove(owner: DocumentOwner): Promise<void> {
    this.owners.delete(owner);
    this.lifetimes.get(owner)?.abort(new Error('gating stopped'));
    this.lifetimes.delete(owner);
    if (this.owners.size || !this.enabled) return;
    await Promise.allSettled([...this.inflight]);
    if (this.owners.size || !this.enabled) return;
    this.enabled = null;
    await this.channel.send('Fetch.disable').catch(() => {});
  }

  private readonly targets = new Map<string, TargetInfo>();
  private readonly last = new Map<string, string>();
  constructor(readonly channel: Channel) {
    channel.on('Target.targetCreated', this.onTarget);
    channel.on('Target.targetInfoChanged', this.onTarget);
    channel.on('Target.targetDestroyed', (e: { targetId: string }) => void this.targets.delete(e.targetId));
    channel.on('Fetch.requestPaused', (e: DocumentPaused) => {
      const done = this.onPaused(e).catch(() => {});
      this.inflight.add(done);
      void done.finally(() => this.inflight.delete(done));
    });
  }

  private readonly onTarget = (e: { targetInfo: TargetInfo }): void => {
    const info = e.targetInfo;
    this.targets.set(info.targetId, info);
    for (const o of this.owners) {
      if (!info.browserContextId) continue;
      if (o.claims.has(info.targetId) || (info.openerId && o.claims.has(info.openerId))) o.contexts.add(info.browserContextId);
    }
  };

  private go(e: DocumentPaused, userAgent?: string): Promise<unknown> {
    const headers = uaHeaders(e.request.headers, userAgent);
    return this.channel.send('Fetch.continueRequest', headers ? { requestId: e.requestId, headers } : { requestId: e.requestId }).catch((err: unknown) => err);
  }

  /** Owners gating frame `frameId`, each with its claim (null: a new page it adopts). */
  private async find(frameId: string): Promise<Array<[DocumentOwner, Claim | null]>> {
    const found: Array<[DocumentOwner, Claim | null]> = [];
    const lookup = () => {
      found.length = 0;
      for (const o of this.owners) {
        if (o.disposed()) continue;
        let claim = o.claims.get(frameId);
        if (!claim) for (const c of o.claims.values()) if (c.frames.has(frameId)) claim = c;
        if (claim) found.push([o, claim]);
      }
    };
    lookup();
    if (found.length) return found;
    let info = this.targets.get(frameId);
    if (!info) {
      // Not a target: an iframe no gated page knows of. A target: learn what it is.
      info = await this.channel
        .send<{ targetInfo: TargetInfo }>('Target.getTargetInfo', { targetId: frameId })
        .then((r) => r.targetInfo, () => undefined);
      if (info) this.onTarget({ targetInfo: info });
      // Meanwhile a page session may have reported the frame (frameAttached) after all.
      lookup();
      if (found.length) return found;
    }
    if (info?.type !== 'page') return found;
    // A page Playwright handed out a moment ago may be a gated one, its gating under way.
    await Promise.all([...this.owners].map((o) => o.settled()));
    lookup();
    if (found.length) return found;
    for (const o of this.owners) if (!o.disposed() && o.wants(info)) found.push([o, null]);
    return found;
  }

  private async onPaused(e: DocumentPaused): Promise<void> {
    const url = e.request.url;
    if (!/^https?:/i.test(url) || passedByPage(e.frameId, url)) return void this.go(e);
    const owners = await this.find(e.frameId);
    if (!owners.length) return void this.go(e);
    const key = e.networkId ?? e.requestId;
    const from = e.redirectedRequestId ? (this.last.get(key) ?? null) : null;
    this.last.set(key, url);
    if (this.last.size > 1_000) this.last.delete(this.last.keys().next().value!);
    for (const [o] of owners) o.pace?.slots.paused(key, url);

    const verdicts = await Promise.all(owners.map(([o]) => o.decide(url)));
    const allowed = verdicts.every((v) => v.decision?.allowed === true);
    const at = new Date().toISOString();
    const entry = (v: Verdict, claim: Claim | null): GatedRequest => ({
      url,
      method: e.request.method,
      resourceType: 'document',
      isNavigation: true,
      frameUrl: frameUrlOf(null, claim?.frames.get(e.frameId), null),
      redirectedFrom: from,
      decision: v.decision as Decision | null,
      error: v.error,
      at,
      request: null,
      page: claim?.page ?? null,
    });
    if (!allowed) {
      await this.channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      owners.forEach(([o, claim], i) => o.record(entry(verdicts[i]!, claim)));
      return;
    }
    // A new page is gated over a session of its own before its document may go: its
    // subresources pause from the first.
    const claims = await Promise.all(
      owners.map(async ([o, claim]) => {
        if (claim) return claim;
        try {
          const { sessionId } = await this.channel.send<{ sessionId: string }>('Target.attachToTarget', { targetId: e.frameId, flatten: false });
          return o.claims.get(e.frameId) ?? o.adopt(e.frameId, this.channel.children.open(sessionId));
        } catch {
          return null; // the target went away meanwhile
        }
      }),
    );
    await Promise.all(claims.map((c) => c?.ready.catch(() => {})));
    const gated = claims.every((c) => c?.isReady);
    // Each owner's entry once the document went (or could not): a paced one starts after its wait.
    const emit = (sent: { at: string; wait: NavigationWait | null } | null): void =>
      owners.forEach(([o, _], i) => {
        const claim = claims[i] ?? null;
        const base = { ...entry(verdicts[i]!, claim), ...(sent ? { sentAt: sent.at, wait: sent.wait } : {}) };
        // The matched Playwright request, for the caller's response() and failure().
        const wait = sent && claim?.started && gated ? claim.started.wait(e.request.method, url, 2_000) : Promise.resolve(null);
        void wait.then((request) =>
          o.record(request ? { ...base, request, frameUrl: frameUrlOf(request, base.frameUrl, claim?.page ?? null) } : base),
        );
      });
    if (gated) return emit(await this.paced(e, owners, claims as Claim[], verdicts));
    // Fail closed: a page that could not be gated does not load.
    await this.channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
    emit(null);
  }

  /**
   * Lets document `e` go once it holds its host's slot, when an owner paces navigations.
   * @returns when it was let go and the interval it waited for; null when it was not (its page
   *  closed, or its owner unregistered, while it waited).
   */
  private async paced(e: DocumentPaused, owners: Array<[DocumentOwner, Claim | null]>, claims: Claim[], verdicts: Verdict[]): Promise<{ at: string; wait: NavigationWait | null } | null> {
    const userAgent = owners[0]![0].userAgent;
    const i = owners.findIndex(([o]) => o.pace);
    const pace = owners[i]?.[0].pace;
    if (!pace) {
      const at = new Date().toISOString();
      await this.go(e, userAgent);
      return { at, wait: null };
    }
    const key = e.networkId ?? e.requestId;
    // The pacing owner's claim on the page ends (page closed) or the owner unregisters: it stops waiting.
    const claim = claims[i]!;
    const lifetime = this.lifetimes.get(owners[i]![0]);
    const signal = lifetime ? AbortSignal.any([claim.gone.signal, lifetime.signal]) : claim.gone.signal;
    let wait: NavigationWait | null;
    try {
      wait = await pace.hold(key, e.frameId, e.request.url, signal, verdicts[i]!.decision ?? undefined);
    } catch {
      await this.channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Aborted' }).catch(() => {});
      return null;
    }
    const at = new Date().toISOString();
    if ((await this.go(e, userAgent)) instanceof Error) pace.slots.end(key);
    return { at, wait };
  }
}

const gates = new WeakMap<object, Promise<DocumentGate | null>>();

async function open(connect: () => Promise<Channel>): Promise<DocumentGate | null> {
  let channel: Channel;
  try {
    channel = await connect();
  } catch {
    return null;
  }
  const gate = new DocumentGate(channel);
  try {
    await channel.send('Target.setDiscoverTargets', { discover: true });
  } catch {
    await channel.detach();
    return null;
  }
  return gate;
}

/**
 * Registers `owner` with the document session of the browser `key` stands for (opened on first
 * use with `connect`, a browser-level DevTools session; one per browser, whatever the driver).
 * @returns an unregister function; null when no browser-level session can be had.
 */
export async function gateDocumentsOf(key: object, connect: () => Promise<Channel>, owner: DocumentOwner): Promise<(() => Promise<void>) | null> {
  let pending = gates.get(key);
  if (!pending) {
    pending = open(connect);
    gates.set(key, pending);
  }
  const gate = await pending;
  if (!gate) return null;
  await gate.add(owner);
  return () => gate.remove(owner);
}

/**
 * gateDocumentsOf for a Playwright browser.
 * @returns null as well when the browser has no browser-level DevTools (not Chromium, or a
 *  persistent context): the pages' own sessions decide documents then.
 */
export async function gateDocuments(browser: Browser | null, owner: DocumentOwner): Promise<(() => Promise<void>) | null> {
  if (!browser) return null;
  return gateDocumentsOf(browser, async () => sessionChannel(await browser.newBrowserCDPSession()), owner);
}
