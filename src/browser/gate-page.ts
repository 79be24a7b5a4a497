// gatePage / gateContext: every request a Playwright page makes is put to the gate before it
// leaves the browser. RFC 9309 makes no exception for subresources: a script, an image or a
// fetch() on another origin is governed by that origin's robots.txt (§2.2.2), so each is checked.
import { EventEmitter } from 'node:events';
import diagnostics from 'node:diagnostics_channel';
import type { BrowserContext, Page, Route, WebSocketRoute } from 'playwright-core';
import type { Decision } from '../gate/types.js';
import { runNavigation } from './navigation.js';
import { guardRedirects } from './redirect-guard.js';
import type { BrowserGate, GateHandle, GateHandleEvents, GatedRequest, GateOptions } from './types.js';

/** Published for every blocked browser request (a GatedRequest), at no cost when nobody listens. */
export const blockedChannel = diagnostics.channel('robots-gate:browser-blocked');

/** The error code the browser reports for a gated request: `net::ERR_BLOCKED_BY_CLIENT`. */
const BLOCKED = 'blockedbyclient';

const toError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

class Handle extends EventEmitter<GateHandleEvents> implements GateHandle {
  readonly blocked: GatedRequest[] = [];
  disposed = false;
  constructor(
    private readonly remove: () => Promise<void>,
    private readonly maxBlocked: number,
  ) {
    super();
  }
  record(entry: GatedRequest): void {
    if (entry.decision?.allowed) {
      this.emit('allowed', entry);
      return;
    }
    if (this.maxBlocked > 0) {
      if (this.blocked.length >= this.maxBlocked) this.blocked.shift();
      this.blocked.push(entry);
    }
    if (blockedChannel.hasSubscribers) blockedChannel.publish(entry);
    this.emit('blocked', entry);
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
  const maxRedirects = options.maxRedirects ?? 20;

  const decide = async (url: string): Promise<{ decision: Decision | null; error: Error | null }> => {
    try {
      return { decision: await gate.check(url), error: null };
    } catch (err) {
      // Fail closed: a URL the gate cannot decide is not sent.
      return { decision: null, error: toError(err) };
    }
  };

  const onRoute = async (route: Route): Promise<void> => {
    const request = route.request();
    const url = request.url();
    // robots.txt governs what goes out over HTTP(S); blob:, file: and the like stay in the machine.
    if (handle.disposed || !/^https?:/i.test(url)) return void (await route.continue().catch(() => {}));
    const { decision, error } = await decide(url);
    const isNavigation = request.isNavigationRequest();
    const base = {
      method: request.method(),
      resourceType: request.resourceType(),
      isNavigation,
      frameUrl: frameUrlOf(request),
      request,
      page: pageOf(request),
    };
    handle.record({ ...base, url, redirectedFrom: null, decision, error, at: new Date().toISOString() });
    if (!decision?.allowed) return void (await route.abort(BLOCKED).catch(() => {}));

    if (!isNavigation) {
      const ua = request.headers()['user-agent'];
      const headers = userAgent && ua !== userAgent ? { ...request.headers(), 'user-agent': userAgent } : undefined;
      return void (await route.continue(headers ? { headers } : undefined).catch(() => {}));
    }
    const outcome = await runNavigation(route, {
      userAgent,
      maxRedirects,
      ...(options.fetchHop ? { fetchHop: options.fetchHop } : {}),
      checkHop: async (hopUrl, from) => {
        const hop = await decide(hopUrl);
        handle.record({ ...base, url: hopUrl, redirectedFrom: from, ...hop, at: new Date().toISOString() });
        return hop.decision;
      },
    }).catch((err) => ({ kind: 'failed' as const, error: toError(err) }));
    if (outcome.kind === 'blocked') await route.abort(BLOCKED).catch(() => {});
    else if (outcome.kind === 'failed') await route.abort('failed').catch(() => {});
  };

  // WebSockets are not requests to Playwright's router; they are gated at the handshake, under
  // the robots.txt of the http(s) origin with the same host (RFC 9309 §2.3 names URI-based
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
      page: 'mainFrame' in target ? (target as Page) : null,
      redirectedFrom: null,
      decision,
      error,
      at: new Date().toISOString(),
    });
    if (decision?.allowed) ws.connectToServer();
    else await ws.close({ code: 1008, reason: 'blocked by robots.txt' }).catch(() => {});
  };

  // Subresources' redirect hops, which routing never sees: one DevTools guard per page.
  const stops: Promise<(() => Promise<void>) | null>[] = [];
  const mine: Page[] = [];
  const guard = (page: Page) => {
    if (guarded.has(page)) return;
    const started = guardRedirects(page, async (hop) => {
        const { decision, error } = await decide(hop.url);
        handle.record({
          url: hop.url,
          method: hop.method,
          resourceType: hop.resourceType,
          isNavigation: false,
          frameUrl: page.url(),
          redirectedFrom: hop.from,
          decision,
          error,
          at: new Date().toISOString(),
          request: null,
          page,
        });
        return decision;
      });
    guarded.set(page, started);
    mine.push(page);
    stops.push(started);
  };
  const isPage = 'mainFrame' in target;
  const onPage = (page: Page) => guard(page);

  const handle = new Handle(async () => {
    if (!isPage) (target as BrowserContext).off('page', onPage);
    await target.unroute('**/*', onRoute).catch(() => {});
    const fns = await Promise.all(stops);
    await Promise.all(fns.map((stop) => stop?.()));
    for (const page of mine) guarded.delete(page);
  }, options.maxBlocked ?? 10_000);
  return (async () => {
    await target.route('**/*', onRoute);
    await target.routeWebSocket(() => true, onWebSocket);
    if (isPage) guard(target as Page);
    else {
      (target as BrowserContext).on('page', onPage);
      for (const page of (target as BrowserContext).pages()) guard(page);
    }
    await Promise.all(stops);
    return handle;
  })();
}

/** Pages with a redirect guard already (gatePage and gateContext on the same page share one). */
const guarded = new WeakMap<Page, Promise<unknown>>();

/**
 * Resolves once `page`'s redirect guard is listening. A page opened in a gated context gets its
 * guard from the context's `page` event; await this before navigating it so that not even the
 * first redirect of the first load slips past.
 */
export async function whenGuarded(page: Page): Promise<void> {
  await guarded.get(page);
}

function pageOf(request: ReturnType<Route['request']>): Page | null {
  try {
    return request.frame().page();
  } catch {
    return null; // service worker or worker request: no frame
  }
}

function frameUrlOf(request: ReturnType<Route['request']>): string {
  try {
    return request.frame().url();
  } catch {
    return ''; // service worker or worker request: no frame
  }
}

/**
 * Gates every request `page` makes: navigations (main frame and iframes, each redirect hop
 * checked against its own origin), subresources, fetch/XHR, dedicated workers' requests and
 * WebSocket handshakes. Allowed requests continue as they were (the User-Agent set to the gate's);
 * disallowed or undecidable ones are aborted as `net::ERR_BLOCKED_BY_CLIENT` before they leave.
 * Create the context with `serviceWorkers: 'block'` (newGatedContext does): a service worker's
 * own fetches bypass page routing.
 * @returns a handle: `blocked` so far, `blocked`/`allowed` events, `dispose()`.
 */
export function gatePage(page: Page, gate: BrowserGate, options: GateOptions = {}): Promise<GateHandle> {
  return install(page, gate, options);
}

/** gatePage for every page of a context, popups and pages opened later included. */
export function gateContext(context: BrowserContext, gate: BrowserGate, options: GateOptions = {}): Promise<GateHandle> {
  return install(context, gate, options);
}
