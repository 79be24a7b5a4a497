// gatePage / gateBrowser for puppeteer-core: the Playwright gate's DevTools core (src/browser) over
// Puppeteer's own sessions. Every request of a gated target is paused by the Fetch domain and
// decided before it leaves (target-gate.ts), each redirect hop again against its own origin
// (RFC 9309 §2.2.2 governs every URL requested); new pages, popups, shared and service workers are
// held at creation by one browser-level session until their own session pauses their requests
// (page-watch.ts). Puppeteer always talks to the browser directly, so there is no slow path here.
import type { Browser, CDPSession, HTTPRequest, Page, Target } from 'puppeteer-core';
import { ChildRouter, sessionChannel, type Channel, type SessionLike } from '../browser/channel.js';
import type { TargetInfo } from '../browser/claim.js';
import type { BrowserSession } from '../browser/direct-session.js';
import { Handle, NO_SPECULATION_RULES } from '../browser/gate-page.js';
import { navigationPace } from '../browser/navigation-pace.js';
import { PageWatch } from '../browser/page-watch.js';
import { gateDocumentsOf, type DocumentOwner } from '../browser/document-gate.js';
import { PageClaims } from '../browser/page-claims.js';
import type { RequestEmitter } from '../browser/request-matcher.js';
import type { BrowserGate, GatedRequest, GateHandle, GateOptions } from '../browser/types.js';

/** One decided request of a Puppeteer page: `request` is Puppeteer's HTTPRequest when it reported one. */
export type PuppeteerGatedRequest = GatedRequest<HTTPRequest, Page>;
/** What gatePage / gateBrowser return: `blocked`, `blocked`/`allowed` events, `dispose()`. */
export type PuppeteerGateHandle = GateHandle<PuppeteerGatedRequest>;

const asSession = (s: CDPSession) => s as unknown as SessionLike;

/** A browser-level session whose flat children (auto-attached targets) are Channels. Puppeteer's
 *  connection creates a CDPSession for every attached target before the event reaches us. */
async function browserSession(browser: Browser): Promise<BrowserSession> {
  const root = await browser.target().createCDPSession();
  const channel = sessionChannel(asSession(root));
  const connection = root.connection();
  if (!connection) throw new Error('gateBrowser needs a Chromium browser (DevTools sessions)');
  return {
    ...channel,
    child(sessionId: string): Channel {
      const session = connection.session(sessionId);
      if (!session) throw new Error(`no DevTools session ${sessionId}`);
      const inner = sessionChannel(asSession(session));
      const child: Channel = {
        ...inner,
        // A child belongs to the session that attached it: detaching through Puppeteer's
        // session.detach() would ask the root connection, which does not own it.
        detach: () => root.send('Target.detachFromTarget', { sessionId }).then(() => {}, () => {}),
        children: undefined as unknown as ChildRouter,
      };
      (child as { children: ChildRouter }).children = new ChildRouter(child);
      return child;
    },
  };
}

const watches = new WeakMap<Browser, Promise<PageWatch>>();

function watchOf(browser: Browser): Promise<PageWatch> {
  let watch = watches.get(browser);
  if (!watch) {
    watch = browserSession(browser).then((s) => new PageWatch(s));
    watches.set(browser, watch);
    watch.catch(() => watches.delete(browser));
  }
  return watch;
}

function install(target: Page | Browser, gate: BrowserGate, options: GateOptions): Promise<PuppeteerGateHandle> {
  const userAgent = options.userAgent ?? gate.userAgent;
  const isPage = 'mainFrame' in target;
  const browser: Browser = isPage ? (target as Page).browser() : (target as Browser);
  const pace = navigationPace(gate, options.politeness, options.heldSlots);

  const registry = new PageClaims<HTTPRequest, Page>({
    gate,
    userAgent,
    pace,
    owner: () => handle,
    emitter: (page) => page as unknown as RequestEmitter<HTTPRequest>,
  });
  const { claims, pages, contexts } = registry;

  /** Gates `page` (or names the page of a target gated from its creation). */
  const guard = (page: Page): Promise<void> => {
    let started = pages.get(page);
    if (started) return started;
    started = (async () => {
      let channel: Channel;
      try {
        channel = sessionChannel(asSession(await page.createCDPSession()));
      } catch (err) {
        throw new Error('gatePage needs a Chromium page (DevTools sessions)', { cause: err });
      }
      const { targetInfo } = await channel.send<{ targetInfo: TargetInfo }>('Target.getTargetInfo');
      // Its context first: popups it opens meanwhile are gated from their creation (wants).
      if (targetInfo.browserContextId) contexts.add(targetInfo.browserContextId);
      await page.evaluateOnNewDocument(NO_SPECULATION_RULES).catch(() => {});
      return registry.adopt(page, channel, targetInfo);
    })();
    pages.set(page, started);
    return started;
  };

  const onPage = (page: Page | null) => void (page && guard(page).catch(() => {}));
  const onTarget = (t: Target) => {
    if (t.type() !== 'page') return;
    void t.page().then((page) => {
      // A target gated from its creation is named at once when Puppeteer tells its id (an
      // internal field, checked); else guard() asks DevTools, one round trip later.
      const id = (t as unknown as { _targetId?: unknown })._targetId;
      const known = typeof id === 'string' ? claims.get(id) : undefined;
      if (page && known && !known.page) {
        known.page = page;
        registry.withMatchers(known);
      }
      onPage(page);
    }, () => {});
  };

  // What this handle gates of new targets: every page and worker of the browser (gateBrowser);
  // a gated page's popups (and theirs) and its context's shared and service workers (gatePage).
  // A service worker runs outside any page's session, so it is gated as a target of its own.
  const wants = (t: TargetInfo): boolean => {
    const worker = t.type === 'shared_worker' || t.type === 'service_worker';
    if (!isPage) return worker || t.type === 'page';
    if (t.browserContextId === undefined || !contexts.has(t.browserContextId)) return false;
    return worker || (t.type === 'page' && t.openerId !== undefined && claims.has(t.openerId));
  };

  // A disconnected browser's navigations stop waiting for their hosts' slots.
  const onDisconnected = () => {
    for (const c of claims.values()) c.gone.abort(new Error('browser disconnected'));
  };
  let unregister: (() => Promise<void>) | null = null;
  const handle = new Handle<PuppeteerGatedRequest>(async () => {
    if (isPage) (target as Page).off('popup', onPage);
    else (target as Browser).off('targetcreated', onTarget);
    browser.off('disconnected', onDisconnected);
    await Promise.allSettled([...pages.values()]);
    await unregister?.();
    await registry.stop();
  }, options.maxBlocked ?? 10_000);
  (handle as import('node:events').EventEmitter).on('newListener', (event: string | symbol) => {
    if (event === 'allowed') registry.pairAll();
  });

  return (async () => {
    browser.once('disconnected', onDisconnected);
    const watch = await watchOf(browser);
    const owner = { disposed: () => handle.disposed, wants, claims, adopt: (id: string, c: Channel) => registry.claim(id, c, null) };
    await watch.add(owner);
    // The net behind the pages' own sessions: a popup's first navigation can leave before its
    // session intercepts (document-gate.ts); documents a page session let go pass it unasked.
    const documents = await gateDocumentsOf(browser, async () => sessionChannel(asSession(await browser.target().createCDPSession())), {
      decide: registry.decide,
      record: (entry) => handle.record(entry as unknown as PuppeteerGatedRequest),
      disposed: () => handle.disposed,
      userAgent,
      pace,
      claims: claims as unknown as DocumentOwner['claims'],
      wants,
      adopt: (id, c) => registry.claim(id, c, null) as unknown as ReturnType<DocumentOwner['adopt']>,
      contexts,
      settled: () => Promise.allSettled([...pages.values()]),
    });
    unregister = async () => {
      watch.remove(owner);
      await documents?.();
    };
    if (isPage) {
      (target as Page).on('popup', onPage);
      await guard(target as Page);
      return handle;
    }
    (target as Browser).on('targetcreated', onTarget);
    await Promise.all((await (target as Browser).pages()).map(guard));
    return handle;
  })();
}

/**
 * Gates every request a Puppeteer page makes: navigations (main frame and iframes, each redirect
 * hop checked against its own origin's robots.txt), subresources, fetch/XHR, dedicated workers'
 * requests, and the page's popups, shared and service workers from their creation on. Allowed
 * requests continue as they were, with the User-Agent set to the gate's; disallowed or undecidable
 * ones fail as `net::ERR_BLOCKED_BY_CLIENT` before they leave the browser. Decided before
 * Puppeteer's own request interception sees them. WebSocket handshakes are not gated (the Fetch
 * domain does not pause them). Navigations keep each host's interval as robots-gate/browser's do
 * (`options.politeness`).
 * @param gate a RobotsGate (anything with `check(url)` and `userAgent`; with `limiter` and
 *   `intervalFor` too, navigations are spaced).
 * @returns a handle: `blocked` so far, `blocked`/`allowed` events (a PuppeteerGatedRequest each), `dispose()`.
 * @throws Error when the page is not Chromium's (no DevTools sessions).
 */
export function gatePage(page: Page, gate: BrowserGate, options: GateOptions = {}): Promise<PuppeteerGateHandle> {
  return install(page, gate, options);
}

/** gatePage for every page of `browser`: those open now and every one opened later, popups and
 *  workers included, in every context. */
export function gateBrowser(browser: Browser, gate: BrowserGate, options: GateOptions = {}): Promise<PuppeteerGateHandle> {
  return install(browser, gate, options);
}
