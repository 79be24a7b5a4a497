// gatePage / gateContext: every request a Playwright page makes is put to the gate before it
// leaves the browser. RFC 9309 makes no exception for subresources: a script, an image or a
// fetch() on another origin is governed by that origin's robots.txt (§2.2.2), so each is checked.
// Requests are paused over DevTools (Fetch domain, target-gate.ts), one session per page, which
// also pauses every redirect hop. With Playwright in this process the page's session decides its
// documents too, and new targets a handle gates (a gated context's pages, a gated page's popups,
// their shared workers) are held at creation until their session is ready (page-watch.ts); a
// browser-level session decides the documents no page session let go (a popup's first request
// can leave before its session intercepts). With Playwright elsewhere (connect) that session
// decides every document (document-gate.ts), and catches new pages at their first navigation.
import { EventEmitter } from 'node:events';
import diagnostics from 'node:diagnostics_channel';
import type { BrowserContext, Page, Request, WebSocketRoute } from 'playwright-core';
import { sessionChannel, type Channel } from './channel.js';
import { directContextId, directPageChannel, inThisProcess } from './direct-session.js';
import { watchNewPages } from './page-watch.js';
import type { TargetInfo } from './claim.js';
import { gateDocuments } from './document-gate.js';
import { navigationPace } from './navigation-pace.js';
import { PageClaims } from './page-claims.js';
import type { BrowserGate, GateHandle, GateHandleEvents, GatedRequest, GateOptions } from './types.js';

/** Published for every blocked browser request (a GatedRequest), at no cost when nobody listens. */
export const blockedChannel = diagnostics.channel('robots-gate:browser-blocked');


/** The handle behind gatePage / gateContext (and robots-gate/puppeteer's): keeps the blocked
 *  requests, emits each decision. `E` is the driver's GatedRequest. */
export class Handle<E extends { readonly decision: { readonly allowed: boolean } | null } = GatedRequest>
  extends EventEmitter<GateHandleEvents<E>>
  implements GateHandle<E>
{
  readonly blocked: E[] = [];
  disposed = false;
  constructor(
    private readonly remove: () => Promise<void>,
    private readonly maxBlocked: number,
  ) {
    super();
  }
  record(entry: E): void {
    const events = this as EventEmitter<GateHandleEvents<E>>;
    if (entry.decision?.allowed) {
      events.emit('allowed', ...([entry] as GateHandleEvents<E>['allowed']));
      return;
    }
    if (this.maxBlocked > 0) {
      if (this.blocked.length >= this.maxBlocked) this.blocked.shift();
      this.blocked.push(entry);
    }
    if (blockedChannel.hasSubscribers) blockedChannel.publish(entry);
    events.emit('blocked', ...([entry] as GateHandleEvents<E>['blocked']));
  }
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.remove();
  }
}

type Target = Page | BrowserContext;

function install(target: Target, gate: BrowserGate, options: GateOptions): Promise<GateHandle> {
  const userAgent = options.userAgent ?? gate.userAgent;
  const isPage = 'mainFrame' in target;
  const pace = navigationPace(gate, options.politeness, options.heldSlots);

  const registry = new PageClaims<Request, Page>({
    gate,
    userAgent,
    pace,
    owner: () => handle,
    emitter: (page) => page,
  });
  const { claims, pages, contexts, decide } = registry;

  const guard = (page: Page): Promise<void> => {
    let started = pages.get(page);
    if (started) return started;
    started = (async () => {
      let channel: Channel;
      try {
        channel = (await directPageChannel(page)) ?? sessionChannel(await page.context().newCDPSession(page));
      } catch (err) {
        // Not Chromium (no DevTools sessions): nothing here could gate the page.
        throw new Error('gatePage needs a Chromium page (DevTools sessions)', { cause: err });
      }
      const { targetInfo } = await channel.send<{ targetInfo: TargetInfo }>('Target.getTargetInfo');
      return registry.adopt(page, channel, targetInfo);
    })();
    pages.set(page, started);
    guarded.set(page, started);
    return started;
  };

  // WebSockets are not requests to the Fetch domain; they are gated at the handshake, under the
  // robots.txt of the http(s) origin with the same host (RFC 9309 §2.3 names URI-based
  // protocols; ws is HTTP's upgrade).
  const onWebSocket = async (ws: WebSocketRoute): Promise<void> => {
    const url = ws.url();
    if (handle.disposed) return void ws.connectToServer();
    const httpUrl = url.replace(/^ws(s?):/i, 'http$1:');
    const { decision, error } = await decide(httpUrl);
    handle.record({
      url: httpUrl,
      method: 'GET',
      resourceType: 'websocket',
      isNavigation: false,
      frameUrl: '',
      request: null,
      page: isPage ? (target as Page) : null,
      redirectedFrom: null,
      decision,
      error,
      at: new Date().toISOString(),
    });
    if (decision?.allowed) ws.connectToServer();
    else await ws.close({ code: 1008, reason: 'blocked by robots.txt' }).catch(() => {});
  };

  const onPage = (page: Page) => void guard(page).catch(() => {});
  let unregister: (() => Promise<void>) | null = null;

  const handle = new Handle(async () => {
    if (isPage) (target as Page).off('popup', onPage);
    else (target as BrowserContext).off('page', onPage);
    await Promise.allSettled([...pages.values()]);
    await unregister?.();
    await registry.stop();
    for (const page of pages.keys()) if (guarded.get(page) === pages.get(page)) guarded.delete(page);
  }, options.maxBlocked ?? 10_000);
  // Whoever listens to `allowed` gets each with Playwright's request (its response() says how it
  // ended): from then on Playwright reports every request of the gated pages to this process.
  (handle as EventEmitter).on('newListener', (event: string | symbol) => {
    if (event === 'allowed') registry.pairAll();
  });

  return (async () => {
    await target.routeWebSocket(() => true, onWebSocket);
    await target.addInitScript(NO_SPECULATION_RULES);
    const context = isPage ? (target as Page).context() : (target as BrowserContext);
    // What this handle gates of the targets its context opens: every page of a gated context, a
    // gated page's popups (and theirs); shared workers of either's context.
    const wants = (t: TargetInfo): boolean =>
      t.browserContextId !== undefined &&
      contexts.has(t.browserContextId) &&
      (t.type === 'shared_worker' || (t.type === 'page' && (!isPage || (t.openerId !== undefined && claims.has(t.openerId)))));
    const adopt = (targetId: string, channel: Channel) => registry.claim(targetId, channel, null);
    if (inThisProcess(context)) {
      // New targets are held at creation until their session is ready (page-watch.ts); each
      // page's own session decides its documents. A persistent context's id is learned from its
      // first page (guard, below).
      const contextId = directContextId(context);
      if (contextId !== null) contexts.add(contextId);
      unregister = await watchNewPages(context, { disposed: () => handle.disposed, wants, claims, adopt });
    }
    // Playwright elsewhere: documents, and new pages' first documents, at the browser level. In
    // this process: the net behind the pages' own sessions, for a popup's first navigation that
    // leaves before its session intercepts (document-gate.ts).
    const watching = unregister;
    const documents = await gateDocuments(context.browser(), {
      decide,
      record: (entry) => handle.record(entry),
      disposed: () => handle.disposed,
      userAgent,
      pace,
      claims,
      wants,
      adopt,
      contexts,
      settled: () => Promise.allSettled([...pages.values()]),
    });
    if (!watching) registry.documentsElsewhere = documents !== null;
    unregister = watching && documents ? async () => void (await Promise.all([watching(), documents()])) : (watching ?? documents);
    if (isPage) {
      // Its popups are gated from their creation (above); this names their page once Playwright has it.
      (target as Page).on('popup', onPage);
      await guard(target as Page);
      return handle;
    }
    context.on('page', onPage);
    await Promise.all(context.pages().map(guard));
    return handle;
  })();
}

/**
 * Speculation rules (`<script type=speculationrules>`) make Chromium prefetch or prerender pages
 * from its browser process, where no DevTools session intercepts them: those requests would leave
 * unchecked. The rules are taken out of every gated document as they are inserted, before Chromium
 * acts on them (it does so in a later microtask; a removed rule set cancels its candidates).
 */
export const NO_SPECULATION_RULES = `new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes)
    if (n.nodeName === 'SCRIPT' && String(n.type).trim().toLowerCase() === 'speculationrules') n.remove();
}).observe(document, { childList: true, subtree: true });`;

/** Pages being gated (gatePage or gateContext), each with when its gating started. */
const guarded = new WeakMap<Page, Promise<void>>();

/**
 * Resolves once `page`'s requests are gated. With Playwright in this process a gated context's new
 * pages are held at creation until they are; over `chromium.connect()`, or in a persistent
 * context, a new page is gated from the context's `page` event on: await this before navigating
 * it so that not even the first request of the first load goes out before it is checked.
 */
export async function whenGuarded(page: Page): Promise<void> {
  await guarded.get(page)?.catch(() => {});
}

/**
 * Gates every request `page` makes: navigations (main frame and iframes, each redirect hop
 * checked against its own origin), subresources, fetch/XHR, dedicated workers' requests and
 * WebSocket handshakes. Allowed requests continue as they were (the User-Agent set to the gate's);
 * disallowed or undecidable ones are failed as `net::ERR_BLOCKED_BY_CLIENT` before they leave.
 * Each allowed navigation (a frame's document, every redirect hop against its own host) waits for
 * its host's slot on `gate.limiter` and holds it until its response has ended, as gate.fetch does
 * (`options.politeness: false` turns that off); subresources are not spaced.
 * The gate decides before the page's own `page.route()` handlers run. Fastest with Playwright in
 * this process (`chromium.launch()`, `launchChromium()`); over `chromium.connect()` it takes
 * Playwright's public sessions, one protocol round trip more per request.
 * Chromium only (DevTools sessions). Create the context with `serviceWorkers: 'block'`
 * (newGatedContext does): a service worker's own fetches are not the page's.
 * @returns a handle: `blocked` so far, `blocked`/`allowed` events, `dispose()`.
 * @throws Error when the page is not Chromium's.
 */
export function gatePage(page: Page, gate: BrowserGate, options: GateOptions = {}): Promise<GateHandle> {
  return install(page, gate, options);
}

/** gatePage for every page of a context, popups and pages opened later included. */
export function gateContext(context: BrowserContext, gate: BrowserGate, options: GateOptions = {}): Promise<GateHandle> {
  return install(context, gate, options);
}
