// Gating one browser target (a page, an out-of-process iframe, a worker) over DevTools: the
// Fetch domain pauses every request of the target before it is sent, each redirect hop included
// (a hop pauses again with `redirectedRequestId`), and the gate decides each one. RFC 9309 §2.2.2
// governs every URL requested, wherever the request came from: the page's own navigation, a frame,
// a subresource or a hop of any of those. Playwright's own routing is not used: it costs a
// round trip through its protocol and its Request machinery per request, and it never sees
// redirect hops.
import type { Page, Request } from 'playwright-core';
import type { Decision } from '../gate/types.js';
import type { Channel } from './channel.js';
import type { NavigationPace } from './navigation-pace.js';
import type { RequestLike, RequestMatcher } from './request-matcher.js';
import type { GatedRequest, NavigationWait } from './types.js';

/** What an entry reads of the driver's request object (Playwright's and Puppeteer's fit). */
export interface DriverRequest extends RequestLike {
  resourceType(): string;
  frame(): { url(): string } | null;
}

/** What an entry reads of the driver's page object. */
export interface DriverPage {
  url(): string;
}

export interface Verdict {
  readonly decision: Decision | null;
  readonly error: Error | null;
}

export interface TargetGateOptions<R extends DriverRequest = Request, P extends DriverPage = Page> {
  decide(url: string): Promise<Verdict>;
  /** The verdict without I/O (a warm origin: `gate.peek`), or undefined when `decide` must be
   *  asked. With it a paused request is answered in the handler of its event, before any other
   *  work: each request waits in the browser until then. */
  decideNow?: ((url: string) => Verdict | undefined) | undefined;
  record(entry: GatedRequest<R, P>): void;
  disposed(): boolean;
  userAgent: string | undefined;
  /** The page this target belongs to, once known (a popup's is known only later). */
  page(): P | null;
  /** Playwright's requests of that page (allowed ones, failed ones), to hand out with each entry;
   *  null while the page is unknown or nobody wants them. */
  requests(allowed: boolean): RequestMatcher<R> | null;
  /** Frames of the page (this target's and its children's), id → URL: filled in here. */
  frames: Map<string, string>;
  /** Documents (frame navigations) are decided by the browser-level session (document-gate.ts),
   *  which sees them after the caller's own Playwright routes: here they only pass. */
  documentsElsewhere: boolean;
  /** Documents allowed here wait for their host's slot and hold it until their response ended
   *  (navigation-pace.ts); undefined: they go at once (politeness off). */
  pace?: NavigationPace | undefined;
  /** Aborts once the target is gone (its page closed, the browser disconnected): a navigation
   *  waiting for its host's slot stops waiting. */
  closed?: AbortSignal | undefined;
}

interface RequestPaused {
  requestId: string;
  networkId?: string;
  redirectedRequestId?: string;
  frameId: string;
  resourceType: string;
  request: { url: string; method: string; headers: Record<string, string> };
  /** Set when paused at the Response stage (documents only, see below). */
  responseStatusCode?: number;
  responseStatusText?: string;
  responseErrorReason?: string;
  responseHeaders?: Array<{ name: string; value: string }>;
}

interface AttachedToTarget {
  sessionId: string;
  targetInfo: { targetId: string; type: string; url: string };
  waitingForDebugger: boolean;
}

/** When an allowed request was let go, and the host interval it waited for (paced navigations). */
interface Sent {
  readonly at: string;
  readonly wait: NavigationWait | null;
}

/** Nothing leaves an http(s)-less URL (data:, blob:, about:): robots.txt governs HTTP(S) only. */
const HTTP = /^https?:/i;

/** Chromium's favicon request (resource type Other); a page's own fetch() of it is gated as any. */
const FAVICON = /^[^?#]*\/favicon\.ico(?:[?#]|$)/i;

/** How long an allowed entry waits for Playwright's request object before it is emitted without. */
const MATCH_WAIT_MS = 2_000;
/** As long for a blocked one, which Playwright reports at once if at all. */
const BLOCKED_MATCH_WAIT_MS = 500;

/** Statuses whose response has no body: the document's response ended with its headers. */
const NO_BODY = new Set([204, 205, 304]);

/** Documents a page's own session let go, by frame and URL (the browser-level session behind it,
 *  document-gate.ts, sees no network id), each with how many times: a document pauses there too
 *  once let go here, and must pass unasked. Bounded, oldest first out. */
const letGo = new Map<string, number>();
const LET_GO_MAX = 10_000;

/** Whether a page's own session let the document `url` of frame `frameId` go: true once per time
 *  it did. */
export function passedByPage(frameId: string, url: string): boolean {
  const key = `${frameId} ${url}`;
  const n = letGo.get(key);
  if (n === undefined) return false;
  if (n > 1) letGo.set(key, n - 1);
  else letGo.delete(key);
  return true;
}

function markLetGo(frameId: string, url: string): void {
  const key = `${frameId} ${url}`;
  letGo.set(key, (letGo.get(key) ?? 0) + 1);
  if (letGo.size > LET_GO_MAX) letGo.delete(letGo.keys().next().value!);
}

/**
 * Starts gating the target behind `channel`: enables Fetch (Request stage) on it and auto-attaches
 * its children (out-of-process iframes, workers), gating those alike before they run.
 * @returns a stop function (disables interception, detaches the children).
 * @throws when Fetch cannot be enabled on the target.
 */
export async function gateTarget<R extends DriverRequest, P extends DriverPage>(
  channel: Channel,
  o: TargetGateOptions<R, P>,
): Promise<() => Promise<void>> {
  // networkId → URL of the chain's latest hop, to name where a redirect came from; frameId → URL.
  const last = new Map<string, string>();
  const frames = o.frames;
  const children: Array<() => Promise<void>> = [];
  // Requests paused and not yet let go or failed: Fetch.disable would release them unchecked.
  const inflight = new Set<Promise<void>>();
  const pace = o.pace;
  // This target's end (stop(), or its session detached), or the caller's (its page closed): a
  // navigation stops waiting for its slot, and one under way gives it back.
  const gone = new AbortController();
  const closed = o.closed ? AbortSignal.any([o.closed, gone.signal]) : gone.signal;
  const onGone = (): void => gone.abort(new Error('target closed'));

  const onPaused = (e: RequestPaused): void => {
    const url = e.request.url;
    if (e.responseStatusCode !== undefined || e.responseErrorReason !== undefined) {
      if (pace && e.resourceType === 'Document') {
        const key = e.networkId ?? e.requestId;
        const status = e.responseStatusCode;
        if (status === 429 || status === 503) pace.backoff(key, e.responseHeaders?.find((h) => h.name.toLowerCase() === 'retry-after')?.value);
        if (e.responseErrorReason !== undefined || NO_BODY.has(status!)) pace.slots.end(key);
      }
      return void withoutSpeculationRules(channel, e);
    }
    if (o.disposed() || !HTTP.test(url) || (o.documentsElsewhere && e.resourceType === 'Document')) {
      channel.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
      return;
    }
    if (e.resourceType === 'Other' && FAVICON.test(url)) {
      // The browser's own favicon fetch, not the page's: no crawler needs it, and it would add a
      // request per page to every site (Playwright's routing aborts it alike).
      channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Aborted' }).catch(() => {});
      return;
    }
    const key = e.networkId ?? e.requestId;
    const from = e.redirectedRequestId ? (last.get(key) ?? null) : null;
    last.set(key, url);
    if (last.size > 10_000) last.delete(last.keys().next().value!);
    if (pace && e.resourceType === 'Document') pace.slots.paused(key, url);
    const now = o.decideNow?.(url);
    if (now !== undefined) {
      try {
        settle(e, url, from, now);
      } catch {
        // As below: answered, never left waiting nor sent unchecked.
        channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      }
      return;
    }
    const decided = o
      .decide(url)
      .then((v) => settle(e, url, from, v))
      // settle() threw before answering: the request must not wait for ever, nor go out unchecked.
      .catch(() => void channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {}));
    inflight.add(decided);
    void decided.finally(() => inflight.delete(decided));
  };

  const settle = (e: RequestPaused, url: string, from: string | null, v: Verdict): void => {
    const allowed = v.decision?.allowed === true;
    const at = new Date().toISOString();
    const page = o.page();
    // The frame's document at the decision: the one that asked for this request.
    const frameUrl = frames.get(e.frameId);
    const entry = (request: R | null, sent: Sent | null): GatedRequest<R, P> => ({
      url,
      method: e.request.method,
      // Playwright's type where it knows the request: DevTools' Fetch domain calls fetch() 'XHR'.
      resourceType: request?.resourceType() ?? e.resourceType.toLowerCase(),
      isNavigation: e.resourceType === 'Document',
      frameUrl: frameUrlOf(request, frameUrl, page),
      redirectedFrom: from,
      decision: v.decision,
      error: v.error,
      at,
      ...(sent ? { sentAt: sent.at, wait: sent.wait } : {}),
      request,
      page,
      frameId: e.frameId,
      requestId: e.networkId ?? e.requestId,
    });
    const emit = (sent: Sent | null): void => {
      const matcher = o.requests(allowed);
      if (!matcher) return o.record(entry(null, sent));
      // Playwright learns of a request only once it is under way (or failed): wait for its object.
      void matcher.wait(e.request.method, url, allowed ? MATCH_WAIT_MS : BLOCKED_MATCH_WAIT_MS).then((request) => o.record(entry(request, sent)));
    };
    if (!allowed) {
      channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      return emit(null);
    }
    const headers = uaHeaders(e.request.headers, o.userAgent);
    const go = () => {
      if (e.resourceType === 'Document') markLetGo(e.frameId, url);
      return channel.send('Fetch.continueRequest', headers ? { requestId: e.requestId, headers } : { requestId: e.requestId });
    };
    // A paced navigation is recorded once it is let go: its row starts then, after its slot wait
    // (an audit stamped at the decision shows gaps shorter than the interval the host got).
    if (pace && e.resourceType === 'Document') return paced(pace, e, url, v.decision!, go, emit);
    go().catch(() => {});
    emit({ at, wait: null });
  };

  /** Sends `go` once the document holds its host's slot, then `emit`s it (with no `Sent` when its
   *  target went away first: nothing was sent); a document that cannot go frees the slot. */
  const paced = (p: NavigationPace, e: RequestPaused, url: string, decision: Decision, go: () => Promise<unknown>, emit: (sent: Sent | null) => void): void => {
    const key = e.networkId ?? e.requestId;
    const sent: Promise<void> = p.hold(key, e.frameId, url, closed, decision).then(
      (wait) => {
        const at = new Date().toISOString();
        go().catch(() => p.slots.end(key));
        emit({ at, wait });
      },
      // The target went away while it waited: nothing is sent.
      () => {
        channel.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Aborted' }).catch(() => {});
        emit(null);
      },
    // A listener that threw (o.record emits the caller's events): the request is answered already.
    ).catch(() => {});
    inflight.add(sent);
    void sent.finally(() => inflight.delete(sent));
  };

  const onLifecycle = (e: { frameId: string; loaderId: string; name: string }): void => {
    if (e.name === 'DOMContentLoaded') pace!.slots.end(e.loaderId);
  };
  const onStoppedLoading = (e: { frameId: string }): void => pace!.slots.endFrame(e.frameId);
  const onLoaded = (e: { requestId: string }): void => pace!.slots.loaded(e.requestId);
  const onDownloadBegin = (e: { frameId: string; guid: string; url: string }): void => void pace!.slots.downloadBegan(e.frameId, e.guid, e.url);
  const onDownloadProgress = (e: { guid: string; state: string }): void => {
    if (e.state !== 'inProgress') pace!.slots.downloadEnded(e.guid);
  };

  const onFrameNavigated = (e: { frame: { id: string; loaderId?: string; url: string; urlFragment?: string } }): void => {
    frames.set(e.frame.id, e.frame.url + (e.frame.urlFragment ?? ''));
    if (pace && e.frame.loaderId) pace.slots.committed(e.frame.id, e.frame.loaderId);
  };

  const onFrameAttached = (e: { frameId: string }): void => {
    if (!frames.has(e.frameId)) frames.set(e.frameId, '');
  };

  const onAttached = (e: AttachedToTarget): void => {
    if (!frames.has(e.targetInfo.targetId)) frames.set(e.targetInfo.targetId, e.targetInfo.url);
    const child = channel.children.open(e.sessionId);
    const resume = () => child.send('Runtime.runIfWaitingForDebugger').catch(() => {});
    // A child that cannot be intercepted (a type without Fetch) runs ungated only if it never
    // requests anything; the attempt is made for every type.
    gateTarget(child, o)
      .then((stop) => void children.push(stop), () => {})
      .finally(resume);
  };

  channel.on('Fetch.requestPaused', onPaused);
  channel.on('Page.frameNavigated', onFrameNavigated);
  channel.on('Page.frameAttached', onFrameAttached);
  channel.on('Target.attachedToTarget', onAttached);
  channel.on('Inspector.detached', onGone);
  if (pace) {
    channel.on('Page.lifecycleEvent', onLifecycle);
    channel.on('Page.frameStoppedLoading', onStoppedLoading);
    channel.on('Network.loadingFinished', onLoaded);
    channel.on('Network.loadingFailed', onLoaded);
    channel.on('Page.downloadWillBegin', onDownloadBegin);
    channel.on('Page.downloadProgress', onDownloadProgress);
  }
  // Sent together, handled in order: the target's requests pause from the first command on, and
  // its children are attached before any of them can run (each waits for the debugger).
  const enabled = channel.send('Fetch.enable', {
    patterns: [
      { urlPattern: '*', requestStage: 'Request' },
      // Documents pause once more with their response: see withoutSpeculationRules.
      { urlPattern: '*', resourceType: 'Document', requestStage: 'Response' },
    ],
  });
  const attaching = channel.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false }).catch(() => {});
  // Frame URLs name the page a blocked request belonged to (Page exists on frame targets only);
  // not waited for: a paused navigation may hold them.
  void channel
    .send<{ frameTree: FrameTree }>('Page.getFrameTree')
    .then((r) => walk(r.frameTree, frames))
    .catch(() => {});
  void channel.send('Page.enable').catch(() => {});
  // DOMContentLoaded of a navigation's loader: the end of its response (navigation-pace.ts).
  if (pace) void channel.send('Page.setLifecycleEventsEnabled', { enabled: true }).catch(() => {});
  // A committed document's body end, for a navigation of its frame that comes while it still
  // arrives (navigation-pace.ts). Bodies are not kept for this session: it never asks for one.
  if (pace) void channel.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }).catch(() => {});
  await enabled;
  await attaching;

  return async () => {
    channel.off('Fetch.requestPaused', onPaused);
    channel.off('Page.frameNavigated', onFrameNavigated);
    channel.off('Page.frameAttached', onFrameAttached);
    channel.off('Target.attachedToTarget', onAttached);
    channel.off('Inspector.detached', onGone);
    if (pace) {
      channel.off('Page.lifecycleEvent', onLifecycle);
      channel.off('Page.frameStoppedLoading', onStoppedLoading);
      channel.off('Network.loadingFinished', onLoaded);
      channel.off('Network.loadingFailed', onLoaded);
      channel.off('Page.downloadWillBegin', onDownloadBegin);
      channel.off('Page.downloadProgress', onDownloadProgress);
    }
    onGone();
    await Promise.all(children.map((stop) => stop()));
    await channel.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: false }).catch(() => {});
    await Promise.allSettled([...inflight]);
    await channel.send('Fetch.disable').catch(() => {});
    channel.children.stop();
  };
}

/**
 * Lets a document's response go on without its `Speculation-Rules` header. The rule set that
 * header names would have Chromium prefetch or prerender pages from its browser process, outside
 * every session's interception (gate-page.ts removes inline rule sets). The document itself was
 * decided at its request.
 */
function withoutSpeculationRules(channel: Channel, e: RequestPaused): void {
  const headers = e.responseHeaders ?? [];
  const kept = headers.filter((h) => h.name.toLowerCase() !== 'speculation-rules');
  if (e.responseErrorReason !== undefined || kept.length === headers.length) {
    channel.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
    return;
  }
  // Headers changed: DevTools wants the status along with them.
  const status = { responseCode: e.responseStatusCode, ...(e.responseStatusText ? { responsePhrase: e.responseStatusText } : {}) };
  channel
    .send('Fetch.continueResponse', { requestId: e.requestId, ...status, responseHeaders: kept })
    .catch(() => channel.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {}));
}

interface FrameTree {
  frame: { id: string; url: string; urlFragment?: string };
  childFrames?: FrameTree[];
}

function walk(tree: FrameTree, frames: Map<string, string>): void {
  if (!frames.has(tree.frame.id)) frames.set(tree.frame.id, tree.frame.url + (tree.frame.urlFragment ?? ''));
  for (const child of tree.childFrames ?? []) walk(child, frames);
}

export function frameUrlOf(request: DriverRequest | null, known: string | undefined, page: DriverPage | null): string {
  if (request) {
    try {
      const frame = request.frame();
      if (frame) return frame.url();
    } catch {
      // a worker's request: no frame
    }
  }
  return known ?? page?.url() ?? '';
}

/** The request's headers with the gate's User-Agent, or undefined when it carries that one already. */
export function uaHeaders(headers: Record<string, string>, userAgent: string | undefined): Array<{ name: string; value: string }> | undefined {
  if (!userAgent) return undefined;
  let same = false;
  const out: Array<{ name: string; value: string }> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'user-agent') {
      if (value === userAgent) same = true;
      continue;
    }
    out.push({ name, value });
  }
  if (same) return undefined;
  out.push({ name: 'User-Agent', value: userAgent });
  return out;
}
