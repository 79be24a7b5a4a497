// The browser DocumentTransport: the document itself is fetched as the HTTP transport fetches it
// (a redirect comes back to the crawl, which schedules its target under that host's politeness),
// then rendered in headless Chromium from those very bytes, with every request the page makes put
// to the gate (gatePage). Each of those decisions becomes an audit row of kind `subresource` whose
// parent is the page. The page's navigations (frames, their redirect hops, popups, its own moves)
// are spaced by the page gate on the gate's limiter: the crawl's slot on the document's host is
// given back when the document's response has ended, before the page renders, so a frame on that
// host waits its interval after the document instead of for the crawl's slot for ever.
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import type { AttemptRow, AuditSink } from '../audit/types.js';
import { newGatedContext, type GatedContext } from '../browser/context.js';
import { whenGuarded } from '../browser/gate-page.js';
import { launchChromium } from '../browser/launch.js';
import type { BrowserGate, GatedRequest } from '../browser/types.js';
import type { Lease } from '../stores/types.js';
import { documentPath, resolveInside } from './document-path.js';
import { HttpTransport, type FetchingGate } from './http-transport.js';
import type { CrawlGate, DocumentTransport, Hop, TransportFetchOptions, TransportResult } from './types.js';
import { decisionStamp } from '../audit/stamp.js';
import { hostKeyOf } from '../fetcher/url.js';

export interface BrowserTransportOptions {
  /** A RobotsGate: it fetches the document and frames' navigations (through its own `resolve`),
   *  and decides every request of the page. */
  readonly gate: CrawlGate & FetchingGate & BrowserGate & { readonly userAgent: string };
  /** Where each subresource decision's row goes (the crawl's audit, or a counter in front of it). */
  readonly audit: Pick<AuditSink, 'recordAttempt'>;
  readonly runId: string;
  /** curl-style `HOST:PORT:ADDR` entries: the browser connects there too. */
  readonly resolve?: readonly string[];
  /** Chromium binary; default /usr/bin/chromium. */
  readonly executablePath?: string;
  /** Save a full-page PNG next to each rendered document (`<documentPath>.png` under outDir). */
  readonly screenshotDir?: string;
  /** Time for a page to load (ms). Default 30,000. */
  readonly timeoutMs?: number;
  /** After `load`, wait at most this long (ms) for the network to fall quiet (late fetch/XHR). Default 2,000. */
  readonly settleMs?: number;
  /** Redirect hops the document fetch follows. Default 5. */
  readonly maxRedirects?: number;
  /** Body bytes kept at most (document and frame navigations). Default 10 MiB. */
  readonly maxBytes?: number;
  /** An already launched browser to use (not closed by close()). */
  readonly browser?: Browser;
}

const HTML = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** Published when a page could not be rendered (`{ url, error }`); the fetched HTML is kept then. */
export const renderErrorChannel = diagnostics.channel('robots-gate:browser-render-error');

/** What is known of one subresource decision until its row is written. */
interface Pending {
  readonly entry: GatedRequest;
  readonly done: Promise<{ status: number | null; endedAt: number; error: string | null }>;
}

export class BrowserTransport implements DocumentTransport {
  private readonly http: HttpTransport;
  private readonly contexts = new Map<string, Promise<GatedContext>>();
  /** Pages being rendered from the bytes fetched already: their first navigation sends nothing
   *  (a route fulfills it), so it takes no slot. */
  private readonly served = new Set<string>();
  /** The crawl's lease on each host whose page renders, when it is the limiter's own (a fleet's):
   *  the page's navigations to that host go under it instead of waiting for it. */
  private readonly leases = new Map<string, Lease>();

  private constructor(
    private readonly o: BrowserTransportOptions,
    private readonly browser: Browser,
    private readonly ownBrowser: boolean,
  ) {
    this.http = new HttpTransport({
      gate: o.gate,
      // A redirect is the crawl's to schedule: its target waits for its own host's slot, which
      // the crawl cannot give while it holds this one.
      followRedirects: false,
      ...(o.maxRedirects !== undefined ? { maxRedirects: o.maxRedirects } : {}),
      ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    });
  }

  /**
   * Launches Chromium (unless `options.browser` is given) and returns the transport.
   * @throws BrowserNotFoundError (names Debian's chromium package) or PlaywrightMissingError.
   */
  static async open(options: BrowserTransportOptions): Promise<BrowserTransport> {
    if (options.browser) return new BrowserTransport(options, options.browser, false);
    const browser = await launchChromium({
      ...(options.executablePath ? { executablePath: options.executablePath } : {}),
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    return new BrowserTransport(options, browser, true);
  }

  async fetch(url: string, options: TransportFetchOptions = {}): Promise<TransportResult> {
    const result = await this.http.fetch(url, options);
    const last = result.hops[result.hops.length - 1]!;
    const renderable =
      !last.blocked && last.status !== null && last.status >= 200 && last.status < 300 && !result.truncated && HTML.test(last.headers['content-type'] ?? '');
    if (!renderable || options.signal?.aborted) return result;
    await options.releaseSlot?.(last.endedAt + 1);
    const host = hostKeyOf(last.url);
    if (options.lease) this.leases.set(host, options.lease);
    let rendered: Awaited<ReturnType<BrowserTransport['render']>>;
    try {
      rendered = await this.render(last, result.body);
    } finally {
      if (options.lease) this.leases.delete(host);
    }
    return {
      ...result,
      ...(rendered.html ? { body: rendered.html } : {}),
      ...(rendered.hostEndMs !== null ? { hostEndedAt: Math.max(last.endedAt, rendered.hostEndMs) } : {}),
    };
  }

  /** Renders `body` as the document at `hop.url`: the rendered HTML (null when the browser could
   *  not: the HTTP body is kept then), and when the last request the page sent to its own host
   *  ended (epoch ms; null when it sent none). */
  private async render(hop: Hop, body: Uint8Array): Promise<{ html: Uint8Array | null; hostEndMs: number | null }> {
    let hostEndMs: number | null = null;
    const html = await this.renderPage(hop, body, (ms) => (hostEndMs = Math.max(hostEndMs ?? 0, ms)));
    return { html, hostEndMs };
  }

  private async renderPage(hop: Hop, body: Uint8Array, sentToHost: (endedAtMs: number) => void): Promise<Uint8Array | null> {
    const pageUrl = hop.url;
    let page: Page | undefined;
    const pending: Pending[] = [];
    let closed!: () => void;
    const pageClosed = new Promise<void>((r) => (closed = r));
    let track: ((entry: GatedRequest) => void) | undefined;
    let untrack: (() => void) | undefined;
    try {
      const { context, handle } = await this.context(new URL(pageUrl).host);
      page = await context.newPage();
      await whenGuarded(page);
      const mine = page;
      const main = page.mainFrame();
      // The document itself is served below from the bytes fetched already, and was recorded then.
      // The page's session decides it before the route runs; its entry is not a second fetch.
      let servedEntry = false;
      const isServed = (entry: GatedRequest) =>
        !servedEntry && entry.isNavigation && entry.url === pageUrl && entry.redirectedFrom === null && (entry.request ? entry.request.frame() === main : true);
      // The context's gate reports for every page of the host; keep this page's decisions.
      track = (entry: GatedRequest) => {
        if (entry.page !== mine) return;
        if (isServed(entry)) return void (servedEntry = true);
        pending.push({ entry, done: outcomeOf(entry, pageClosed) });
      };
      handle.on('allowed', track);
      handle.on('blocked', track);
      untrack = () => {
        handle.off('allowed', track!);
        handle.off('blocked', track!);
      };
      // The document was fetched (and gated) already: hand the browser those bytes instead of
      // asking the server twice. A page route runs after the context's gate, which lets this
      // navigation go without a slot (this.served).
      this.served.add(pageUrl);
      let served = false;
      await page.route(pageUrl, async (route) => {
        const r = route.request();
        if (served || !r.isNavigationRequest() || r.frame() !== main) return route.fallback();
        served = true;
        await route.fulfill({ status: hop.status ?? 200, headers: wireless(hop.headers), body: Buffer.from(body) });
      });
      const timeout = this.o.timeoutMs ?? 30_000;
      await page.goto(pageUrl, { waitUntil: 'load', timeout });
      await page.waitForLoadState('networkidle', { timeout: this.o.settleMs ?? 2_000 }).catch(() => {});
      const html = Buffer.from(await page.content(), 'utf8');
      if (this.o.screenshotDir) await this.screenshot(page, pageUrl);
      return html;
    } catch (err) {
      if (renderErrorChannel.hasSubscribers) renderErrorChannel.publish({ url: pageUrl, error: err });
      return null;
    } finally {
      this.served.delete(pageUrl);
      await page?.close().catch(() => {});
      untrack?.();
      closed();
      const rows = await Promise.all(pending.map(async (p) => this.row(p.entry, pageUrl, await p.done)));
      for (const row of rows.sort((a, b) => a.startedAt.localeCompare(b.startedAt))) this.o.audit.recordAttempt(row);
      const host = hostKeyOf(pageUrl);
      for (const row of rows) if (row.host === host && row.outcome !== 'blocked') sentToHost(Date.parse(row.endedAt));
    }
  }

  private async screenshot(page: Page, url: string): Promise<void> {
    const dir = this.o.screenshotDir!;
    const full = resolveInside(dir, `${documentPath(url)}.png`);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await page.screenshot({ path: full, fullPage: true, timeout: this.o.timeoutMs ?? 30_000 });
  }

  /** One context per host: cookies and caches never cross hosts, and each is gated whole. */
  private context(host: string): Promise<GatedContext> {
    let c = this.contexts.get(host);
    if (!c) {
      // maxBlocked 0: the context lives as long as the crawl; the rows keep what is needed.
      // Navigations are spaced (the crawl gave its slot back before the render) except the page's
      // own document, served from the fetched bytes.
      c = newGatedContext(this.browser, this.o.gate, {
        userAgent: this.o.gate.userAgent,
        maxBlocked: 0,
        heldSlots: { served: (url) => this.served.delete(url), lease: (h) => this.leases.get(h) },
      });
      c.catch(() => this.contexts.delete(host));
      this.contexts.set(host, c);
    }
    return c;
  }

  private row(e: GatedRequest, pageUrl: string, done: { status: number | null; endedAt: number; error: string | null }): AttemptRow {
    const d = e.decision;
    const sent = d?.allowed === true;
    return {
      runId: this.o.runId,
      url: e.url,
      host: hostKeyOf(e.url),
      // A paced navigation (an iframe's) starts when it was let go, after its host's slot wait.
      startedAt: e.sentAt ?? e.at,
      endedAt: new Date(sent ? done.endedAt : Date.parse(e.sentAt ?? e.at)).toISOString(),
      outcome: !sent ? 'blocked' : done.error !== null ? 'error' : d.overridden ? 'overridden' : 'fetched',
      status: sent ? done.status : null,
      bytes: null,
      contentSha256: null,
      savedPath: null,
      ...decisionStamp(d),
      reason: d?.reason ?? 'gate-error',
      parentUrl: pageUrl,
      kind: 'subresource',
      waitReason: e.wait?.reason ?? null,
      intervalMs: e.wait?.intervalMs ?? null,
      error: !sent ? (e.error ? e.error.message : null) : done.error,
    };
  }

  async close(): Promise<void> {
    const contexts = [...this.contexts.values()];
    this.contexts.clear();
    await Promise.all(contexts.map((c) => c.then((g) => g.context.close()).catch(() => {})));
    if (this.ownBrowser) await this.browser.close().catch(() => {});
    await this.http.close();
  }
}

/** How an allowed request ended: its response status, or the browser's error, or the page closing first. */
function outcomeOf(e: GatedRequest, pageClosed: Promise<void>): Pending['done'] {
  const req: Request | null = e.request;
  if (!e.decision?.allowed || req === null || e.redirectedFrom !== null || req.url() !== e.url) {
    return Promise.resolve({ status: null, endedAt: Date.now(), error: null });
  }
  const finished = req.response().then(
    (res) => ({ status: res?.status() ?? null, endedAt: Date.now(), error: res ? null : (req.failure()?.errorText ?? 'no response') }),
    (err: unknown) => ({ status: null, endedAt: Date.now(), error: String(err) }),
  );
  const gone = pageClosed.then(() => ({ status: null, endedAt: Date.now(), error: 'page closed before the response' }));
  return Promise.race([finished, gone]);
}

/** Headers to hand the browser with a decoded body: the wire encoding and lengths no longer apply. */
function wireless(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
  }
  return out;
}
