// Browser crawlers (PlaywrightCrawler, PuppeteerCrawler): each page Crawlee opens is gated whole
// before its navigation, through robots-gate/browser or robots-gate/puppeteer, so its
// subresources, frames, workers, popups and every redirect hop are decided like the navigation.
// Every navigation keeps its host's interval, one slot per request sent: the one Crawlee makes
// takes its host's slot in the pre-navigation hook, on Crawlee's terms (before page.goto and its
// timeout), and hands it to the page gate, which holds it as that document's own until its
// response has ended (the next redirect hop, DOMContentLoaded, its failure). Each redirect hop,
// frame and popup navigation then waits for its own host's slot in the page gate, on the same
// limiter and terms (NavigationTerms). Subresources are gated and counted, not spaced.
import type { Decision } from '../gate/types.js';
import type { RobotsGate } from '../gate/gate.js';
import { gatePage as gatePlaywrightPage } from '../browser/gate-page.js';
import type { BrowserGate, GatedRequest, GateOptions } from '../browser/types.js';
import { gatePage as gatePuppeteerPage } from '../puppeteer/gate-page.js';
import type { Attempt } from './attempts.js';
import type { NavigationTerms, Slot, TakeSlot } from './pace.js';

type Hook = (context: BrowserContext) => Promise<void>;

interface BrowserContext {
  request: { url: string; retryCount: number };
  page: PageLike;
  response?: { status(): number } | null;
}

interface PageLike {
  once(event: 'close', fn: () => void): unknown;
  url(): string;
}

interface Handle {
  on(event: 'blocked' | 'allowed', fn: (entry: GatedRequest<DriverRequest, unknown>) => void): unknown;
  dispose(): Promise<void>;
}

interface PageState {
  /** The URL Crawlee navigates to. */
  url: string;
  slot: Slot | null;
  /** The page gate holds `slot` for the navigation's document: it gives it back, not the hooks. */
  handedOver: boolean;
  startMs: number;
  decision: Decision | null;
  /** The first blocked navigation of the page's main frame (its own URL or a redirect hop). */
  navigation: Promise<Decision | null>;
  /** Aborted when the page closes: Crawlee closes a timed-out request's page, but does not
   *  cancel its hooks, so a wait for the host's slot would otherwise be granted to a dead page
   *  and held for the whole lease, stalling the host. */
  readonly closed: AbortController;
}

/** What is read of the driver's request: its response (Playwright: a promise; Puppeteer: now or null). */
interface DriverRequest {
  response(): unknown;
}

/** The HTTP status of an allowed request, when the driver has it within `ms`; else null. */
async function statusOf(request: DriverRequest | null, ms: number): Promise<number | null> {
  try {
    const pending = Promise.resolve(request?.response()) as Promise<{ status(): number } | null | undefined>;
    const timeout = new Promise<null>((r) => setTimeout(() => r(null), ms).unref?.());
    return (await Promise.race([pending, timeout]))?.status() ?? null;
  } catch {
    return null;
  }
}

/** How long an allowed request's row waits for its response status. */
const STATUS_WAIT_MS = 5_000;

/** How long a failed navigation waits for the gate to report the block that failed it. */
const REPORT_WAIT_MS = 1_500;

export interface BrowserGateHooks {
  /** The decision that failed `context`'s navigation (net::ERR_BLOCKED_BY_CLIENT), if the gate made one. */
  blockedNavigation(context: { page?: unknown; request: { url: string } }, error: unknown): Promise<Decision | undefined>;
  /** Settles once every row still waiting for its response status is written. */
  settled(): Promise<void>;
}

export function browserHooks(
  crawler: { preNavigationHooks: Hook[]; postNavigationHooks: Hook[] },
  gate: RobotsGate,
  o: { takeSlot: TakeSlot; navigations: NavigationTerms; record?: (a: Attempt) => void },
): BrowserGateHooks {
  const pages = new WeakMap<object, PageState>();
  const pendingRows = new Set<Promise<void>>();
  // The page gate decides through the gate and spaces on the crawler's limiter and terms.
  const pacing: BrowserGate = {
    check: (url) => gate.check(url),
    userAgent: gate.userAgent,
    limiter: o.navigations.limiter,
    intervalFor: (url, decision) => o.navigations.intervalFor(url, decision),
    backoffUntil: (retryAfter, endedAt) => gate.backoffUntil(retryAfter, endedAt),
  };

  const open = async (page: PageLike): Promise<PageState> => {
    const known = pages.get(page);
    if (known) return known;
    const puppeteer = typeof (page as { createCDPSession?: unknown }).createCDPSession === 'function';
    let navigated: (d: Decision | null) => void = () => {};
    const state: PageState = {
      url: '',
      slot: null,
      handedOver: false,
      startMs: Date.now(),
      decision: null,
      navigation: new Promise((resolve) => (navigated = resolve)),
      closed: new AbortController(),
    };
    // The first document that would wait after the pre-navigation hook took the slot is the
    // navigation Crawlee makes (the page shows about:blank until then): it goes in that slot.
    const options: GateOptions = {
      heldSlots: {
        taken: () => {
          if (!state.slot || state.handedOver) return undefined;
          state.handedOver = true;
          return state.slot;
        },
      },
    };
    const handle = (puppeteer
      ? await gatePuppeteerPage(page as never, pacing, options)
      : await gatePlaywrightPage(page as never, pacing, options)) as unknown as Handle;
    handle.on('blocked', (e) => {
      // The page's own navigation, or a hop of it (an iframe's blocked document does not fail it).
      if (e.isNavigation && (e.url === state.url || (e.redirectedFrom !== null && e.redirectedFrom === state.url))) navigated(e.decision);
      o.record?.({
        url: e.url,
        startMs: Date.parse(e.at),
        endMs: Date.parse(e.at),
        outcome: e.decision ? 'blocked' : 'error',
        decision: e.decision,
        ...(e.error ? { reason: 'check-failed', error: e.error.message } : {}),
        kind: e.isNavigation ? (e.redirectedFrom ? 'redirect' : 'page') : 'subresource',
        parentUrl: e.redirectedFrom ?? (e.frameUrl || null),
        final: true,
      });
    });
    if (o.record) {
      // Every attempt gets its row; listening to `allowed` makes the driver report each request here.
      handle.on('allowed', (e) => {
        if (e.isNavigation && e.redirectedFrom === null && e.url === state.url) return; // the page's row comes after navigation
        const row = statusOf(e.request, STATUS_WAIT_MS).then((status) =>
          o.record!({
            url: e.url,
            startMs: Date.parse(e.at),
            endMs: Date.now(),
            outcome: e.decision?.overridden ? 'overridden' : 'fetched',
            decision: e.decision,
            status,
            kind: e.isNavigation ? (e.redirectedFrom ? 'redirect' : 'page') : 'subresource',
            parentUrl: e.redirectedFrom ?? (e.frameUrl || null),
            final: true,
          }),
        );
        pendingRows.add(row);
        void row.finally(() => pendingRows.delete(row));
      });
    }
    pages.set(page, state);
    page.once('close', () => {
      state.closed.abort(new Error('page closed'));
      state.slot?.release();
      void handle.dispose().catch(() => {});
    });
    return state;
  };

  crawler.preNavigationHooks.unshift(async ({ page, request }) => {
    const state = await open(page);
    state.url = request.url;
    // Decided already (Crawlee asked before the run); warm, so no I/O here.
    state.decision = await gate.check(request.url);
    state.startMs = Date.now();
    state.slot = null;
    state.handedOver = false;
    const slot = await o.takeSlot(request.url, state.decision, state.closed.signal);
    if (state.closed.signal.aborted) {
      slot.release();
      throw state.closed.signal.reason;
    }
    state.slot = slot;
  });
  crawler.postNavigationHooks.push(async ({ page, request, response }) => {
    const state = pages.get(page);
    if (!state) return;
    // Not handed over: the page gate never saw the document wait (nothing was sent, or it came
    // from the cache); the slot ends here.
    if (!state.handedOver) state.slot?.release();
    o.record?.({
      url: request.url,
      startMs: state.startMs,
      endMs: Date.now(),
      outcome: state.decision?.overridden ? 'overridden' : 'fetched',
      decision: state.decision,
      status: response?.status() ?? null,
      waitReason: state.slot?.waitReason ?? null,
      intervalMs: state.slot?.intervalMs ?? null,
      attempt: request.retryCount + 1,
      final: true,
    });
  });

  return {
    async settled() {
      await Promise.allSettled([...pendingRows]);
    },
    async blockedNavigation(context, error) {
      if (!/ERR_BLOCKED_BY_CLIENT/.test(String((error as Error)?.message ?? error))) return undefined;
      const state = context.page ? pages.get(context.page) : undefined;
      if (!state) return undefined;
      state.slot?.release();
      const timeout = new Promise<null>((r) => setTimeout(() => r(null), REPORT_WAIT_MS).unref?.());
      return (await Promise.race([state.navigation, timeout])) ?? undefined;
    },
  };
}
