// gateCrawler: one call that puts a RobotsGate in charge of a Crawlee 3 crawler. Crawlee already
// asks, before every request it runs and for every URL it enqueues, whether robots.txt allows it
// (its `respectRobotsTxtFile` path, robots-parser underneath); those two questions are answered
// by the gate instead, so a blocked request is skipped the way Crawlee skips (request handled,
// no retries, `onSkippedRequest` with reason `robotsTxt`). What Crawlee never asks is asked here
// too: each redirect hop of an HTTP crawler (http-client.ts), every request a browser crawler's
// page makes (robots-gate/browser, robots-gate/puppeteer), and the host's slot before each send.
import { RobotsBlockedError } from '../gate/errors.js';
import type { RobotsGate } from '../gate/gate.js';
import type { Decision } from '../gate/types.js';
import type { AuditSink } from '../audit/types.js';
import type { RateLimiter } from '../stores/types.js';
import { Attempts } from './attempts.js';
import { browserHooks } from './browser-hooks.js';
import { GatedHttpClient } from './http-client.js';
import { gateNavigations, gatePace, limiterNavigations, limiterPace, type TakeSlot } from './pace.js';

export interface GateCrawlerOptions {
  /** Per-host spacing across the crawler's concurrency (and, with a Redis limiter, across
   *  processes). Default: the gate's own (`gate.limiter`, shared with its robots.txt requests,
   *  and its `minIntervalMs`, `jitter`, Crawl-delay and override terms). A browser crawler's
   *  pages space their redirect hops, frames and popups on the same limiter and terms. */
  limiter?: RateLimiter;
  /** A floor between two requests to one host other than the gate's, in ms, plus up to `jitter`
   *  of it (default 0.2). Crawl-delay (seconds in robots.txt) and the gate's
   *  `overrideIntervalMs` still raise it. */
  minIntervalMs?: number;
  /** Largest random addition to the floor, a fraction of it. Only with `minIntervalMs`. */
  jitter?: number;
  /** Replaces the slot-taking of the requests Crawlee sends (the gate's own spacing, a test's
   *  clock). A browser crawler's pages still space the navigations they make themselves
   *  (redirect hops, frames, popups) on the gate's limiter and terms. */
  takeSlot?: TakeSlot;
  /** Where each attempt is written (a SqliteAuditSink or JsonlAuditSink): `robots-gate audit`
   *  and `report` read the run. Attach before the crawl starts, so every robots.txt text the gate
   *  loads is kept. Not closed here. */
  audit?: AuditSink;
  /** The audit's run id; default `crawlee-<time>-<random>`. */
  runId?: string;
}

/** What Crawlee hands `onSkippedRequest` for a URL the gate refused: its own fields, and the
 *  decision (rule, line, policy stamp) or the error that made it undecidable. */
export interface RobotsSkip {
  url: string;
  reason: 'robotsTxt' | string;
  decision?: Decision;
  error?: Error;
}

/** The handle gateCrawler returns. */
export interface GatedCrawler {
  /** The audit run id, when an audit is written. */
  readonly runId: string | null;
  /** The last refusal of `url` by the gate (the same object `onSkippedRequest` sees). */
  decisionOf(url: string): Decision | undefined;
  /** Ends the audit run (`completed` unless told otherwise); `crawler.run()` calls it itself. */
  end(status?: 'completed' | 'interrupted' | 'failed', error?: unknown): void;
}

/** The parts of a Crawlee BasicCrawler used here (3.x; instance members, not public API). */
interface CrawlerInternals {
  constructor: { name: string };
  respectRobotsTxtFile: unknown;
  httpClient?: unknown;
  /** An HttpCrawler's: how long it waits for a response (ms). */
  navigationTimeoutMillis?: number;
  preNavigationHooks?: unknown[];
  postNavigationHooks?: unknown[];
  browserPool?: unknown;
  delayRequest(request: { url: string }, source: unknown): boolean;
  isAllowedBasedOnRobotsTxtFile(url: string): Promise<boolean>;
  getRobotsTxtFileForUrl(url: string): Promise<unknown>;
  handleSkippedRequest(options: RobotsSkip): Promise<void>;
  _requestFunctionErrorHandler(error: unknown, context: CrawlingContext, source: RequestSource): Promise<void>;
  run(...args: unknown[]): Promise<unknown>;
}

interface CrawlingContext {
  request: { url: string; noRetry: boolean; state: unknown; retryCount: number };
  page?: unknown;
}

interface RequestSource {
  markRequestHandled(request: unknown): Promise<unknown>;
}

/** Crawlee's RequestState.SKIPPED (an enum value, stable through 3.x). */
const SKIPPED = 7;
const MAX_REMEMBERED = 10_000;
const installed = new WeakSet<object>();

/**
 * Puts `gate` in charge of `crawler` (BasicCrawler, HttpCrawler, CheerioCrawler, JSDOMCrawler,
 * PlaywrightCrawler, PuppeteerCrawler of Crawlee 3): every request is decided before it is sent
 * (robots-gate's ladder: 4xx allow, 5xx/429/network disallow; cache; one fetch per origin); a
 * refused one is skipped, with `onSkippedRequest({ url, reason: 'robotsTxt', decision })`; each
 * redirect hop of an HTTP crawler (and of `sendRequest`) is decided against its own origin before
 * it is followed; a browser crawler's pages are gated whole; each host's interval holds across
 * the concurrency. `enqueueLinks`/`addRequests` refuse a URL up front only when its origin's
 * robots.txt is already in the gate (no fetch at enqueue time).
 * Call it once, before `crawler.run()`. Crawlee's own `respectRobotsTxtFile` is replaced.
 * @throws TypeError when `crawler` is not a Crawlee 3 crawler this adapter knows, or is gated already.
 */
export function gateCrawler(crawler: object, gate: RobotsGate, options: GateCrawlerOptions = {}): GatedCrawler {
  const c = crawler as unknown as CrawlerInternals;
  for (const name of ['delayRequest', 'isAllowedBasedOnRobotsTxtFile', 'getRobotsTxtFileForUrl', 'handleSkippedRequest', '_requestFunctionErrorHandler'] as const) {
    if (typeof c[name] !== 'function') {
      throw new TypeError(`gateCrawler needs a Crawlee 3 crawler (BasicCrawler or a subclass): ${c.constructor?.name ?? typeof crawler} has no ${name}()`);
    }
  }
  if (installed.has(crawler)) throw new TypeError('gateCrawler: this crawler is gated already');
  installed.add(crawler);

  const audit = options.audit ? new Attempts(options.audit, gate, { runId: options.runId, crawler: c.constructor.name }) : null;
  const record = audit ? audit.record.bind(audit) : undefined;
  const ownTerms =
    options.minIntervalMs === undefined && options.limiter === undefined
      ? null
      : {
          limiter: options.limiter ?? gate.limiter,
          minIntervalMs: options.minIntervalMs ?? 2_000,
          jitter: options.jitter ?? 0.2,
          overrideIntervalMs: gate.overrideIntervalMs,
        };
  const takeSlot = options.takeSlot ?? (ownTerms ? limiterPace(ownTerms) : gatePace(gate));
  // A browser page's own navigations (redirect hops, frames, popups) on the same limiter and terms.
  const navigations = ownTerms && !options.takeSlot ? limiterNavigations(ownTerms, (host) => gate.isUnderOverride(host)) : gateNavigations(gate);

  // Refusals by URL, so the skip that follows can name its decision.
  const refused = new Map<string, { decision?: Decision; error?: Error }>();
  const remember = (url: string, why: { decision?: Decision; error?: Error }) => {
    refused.delete(url);
    refused.set(url, why);
    if (refused.size > MAX_REMEMBERED) refused.delete(refused.keys().next().value!);
  };

  // Crawlee asks the same question before a run and at enqueue time. Its task loop calls
  // delayRequest(request) and then, with no await between, isAllowedBasedOnRobotsTxtFile(request.url):
  // the request noted here is the one about to run.
  let running: { url: string } | null = null;
  const delayRequest = c.delayRequest.bind(c);
  c.delayRequest = (request, source) => {
    const delayed = delayRequest(request, source);
    running = delayed ? null : request;
    return delayed;
  };

  // URLs refused before they were queued that have their row: a link on every page of a site is
  // one decision, not a row per page that links to it.
  const refusedRows = new Set<string>();
  const known = (url: string): boolean => {
    const d = gate.peek(url);
    if (d === undefined || d.allowed) return true;
    remember(url, { decision: d });
    if (record && !refusedRows.has(url)) {
      if (refusedRows.size >= MAX_REMEMBERED) refusedRows.delete(refusedRows.values().next().value!);
      refusedRows.add(url);
      const now = Date.now();
      record({ url, startMs: now, endMs: now, outcome: 'blocked', decision: d, final: true });
    }
    return false;
  };

  c.respectRobotsTxtFile = true;
  c.isAllowedBasedOnRobotsTxtFile = async (url: string) => {
    const request = running;
    running = null;
    if (request === null || request.url !== url) return known(url);
    const startMs = Date.now();
    let decision: Decision;
    try {
      decision = await gate.check(url);
    } catch (err) {
      // Fail closed: a URL the gate cannot decide is not sent.
      const error = err instanceof Error ? err : new Error(String(err));
      remember(url, { error });
      record?.({ url, startMs, endMs: Date.now(), outcome: 'error', decision: null, reason: 'check-failed', error: error.message, final: true });
      return false;
    }
    if (decision.allowed) return true;
    remember(url, { decision });
    record?.({ url, startMs, endMs: Date.now(), outcome: 'blocked', decision, final: true });
    return false;
  };
  // enqueueLinks filters through the file Crawlee fetched for the page's origin; this one
  // answers per URL from what the gate holds.
  const peekFile = { isAllowed: (url: string) => known(url) };
  c.getRobotsTxtFileForUrl = async () => peekFile;

  const handleSkippedRequest = c.handleSkippedRequest.bind(c);
  c.handleSkippedRequest = (skip: RobotsSkip) => {
    if (skip.reason === 'robotsTxt' && skip.decision === undefined && skip.error === undefined) {
      // In place: enqueueLinks hands the same object to its own onSkippedRequest next.
      Object.assign(skip, refused.get(skip.url) ?? {});
    }
    return handleSkippedRequest(skip);
  };

  // A refusal after the request started (a redirect hop, a page's own navigation) is a skip too:
  // the request is handled, never retried.
  const onError = c._requestFunctionErrorHandler.bind(c);
  c._requestFunctionErrorHandler = async (error, context, source) => {
    discardUnreadBody(context);
    const decision = error instanceof RobotsBlockedError ? error.decision : await browser?.blockedNavigation(context, error);
    if (!decision) return onError(error, context, source);
    const { request } = context;
    remember(request.url, { decision });
    request.noRetry = true;
    request.state = SKIPPED;
    await source.markRequestHandled(request);
    await c.handleSkippedRequest({ url: request.url, reason: 'robotsTxt' });
  };

  if (c.httpClient && typeof (c.httpClient as { stream?: unknown }).stream === 'function') {
    c.httpClient = new GatedHttpClient(c.httpClient as never, {
      check: (url) => gate.check(url),
      takeSlot,
      record,
      userAgent: gate.userAgent,
      backoffUntil: (retryAfter, endedAt) => gate.backoffUntil(retryAfter, endedAt),
      ...(typeof c.navigationTimeoutMillis === 'number' ? { giveUpAfterMs: c.navigationTimeoutMillis } : {}),
    });
  }
  const browser = c.browserPool && Array.isArray(c.preNavigationHooks) ? browserHooks(c as never, gate, { takeSlot, navigations, record }) : null;

  let ended = false;
  const end = (status: 'completed' | 'interrupted' | 'failed' = 'completed', error: unknown = null) => {
    if (ended) return;
    ended = true;
    audit?.end(status, error);
  };
  const run = c.run.bind(c);
  c.run = async (...args: unknown[]) => {
    try {
      const stats = await run(...args);
      await browser?.settled();
      end('completed');
      return stats;
    } catch (err) {
      end('failed', err);
      throw err;
    }
  };

  return {
    runId: audit?.runId ?? null,
    decisionOf: (url) => refused.get(url)?.decision,
    end,
  };
}

/**
 * An HTTP crawler's response stream that the request failed before reading (a post-navigation
 * hook refused it: Crawlee's own content-type check throws without touching the body) is
 * destroyed: its host's slot ends with the body, and an unread body would hold the slot until
 * the socket timed out (about 120 s), stalling the host. Browser responses have no stream.
 */
function discardUnreadBody(context: unknown): void {
  const res = (context as { response?: unknown } | undefined)?.response as
    | { readable?: boolean; readableEnded?: boolean; destroy?: () => void }
    | undefined;
  if (res && typeof res.destroy === 'function' && res.readable === true && res.readableEnded === false) res.destroy();
}
