// gate.fetch: fetch with redirects followed here, hop by hop, so each hop is checked against its
// own origin's robots.txt before a byte is sent to it.
import { fetch as undiciFetch, Headers, Request, type Dispatcher } from 'undici';
import { locationAsSent, parseHttpUrl, splitCanonicalUrl } from '../fetcher/url.js';
import { closedBeforeCall, GateClosedError, TooManyRedirectsError } from './errors.js';
import type { GateDoor } from './politeness.js';
import type { Decision, FetchHop } from './types.js';

/** RequestInit plus the gate's audit hook. */
export interface GateFetchInit extends Omit<RequestInit, 'dispatcher'> {
  /** Called once per request sent (with its response status) and once for a blocked hop (before
   *  the RobotsBlockedError is thrown), in order: the crawl audits each redirect hop from it. */
  onHop?: (hop: FetchHop) => void;
  /** Redirect hops followed at most (fetch's own limit is 20). */
  maxRedirects?: number;
  /** `false`: send without waiting for the hosts' slots, for a caller that holds them already
   *  (the crawl takes its host's slot before it fetches, and follows no redirect here). Default:
   *  the gate's `politeness` option. */
  politeness?: boolean;
  /** The decision for the first URL, taken just before by the caller: it is not checked again.
   *  A caller holding the host's slot needs this: a re-check that refetched robots.txt would wait
   *  for the very slot it holds. */
  decision?: Decision;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** One gate.fetch's state from hop to hop. */
interface Hops {
  readonly gate: GateDoor;
  readonly init: GateFetchInit;
  readonly dispatcher: Dispatcher;
  readonly mode: RequestRedirect;
  readonly limit: number;
  url: string;
  parentUrl: string | null;
  method: string;
  headers: Headers | Readonly<Record<string, string>>;
  body: ArrayBuffer | undefined;
  /** Where the last hop's response redirects to (set by `answer`). */
  location: string | undefined;
}

type FetchInput = string | URL | { url: string; method?: string; headers?: unknown; arrayBuffer?: () => Promise<ArrayBuffer> };

export function gatedFetch(gate: GateDoor, input: FetchInput, init: GateFetchInit = {}): Promise<Response> {
  // A call made after gate.close() never waited for a slot: its GateClosedError says it was refused,
  // not that the close came while it waited. Read at the call, before any await: a close during the
  // call is the waiting case.
  if (gate.politeness.closed) return fetchHops(gate, input, init).catch((err: unknown) => Promise.reject(closedBeforeCall(err)));
  return fetchHops(gate, input, init);
}

function fetchHops(gate: GateDoor, input: FetchInput, init: GateFetchInit): Promise<Response> {
  const source = typeof input === 'string' || input instanceof URL ? undefined : input;
  let st: Hops;
  let canonical = false;
  try {
    const raw = source ? source.url : input;
    // A URL already in canonical form is sent as it is: no URL object on the hot path.
    canonical = typeof raw === 'string' && splitCanonicalUrl(raw);
    const url = canonical ? (raw as string) : parseHttpUrl(raw as string | URL).href;
    const method = (init.method ?? source?.method ?? 'GET').toUpperCase();
    // One identity: the header sent is the one whose product token the rules were matched against.
    // Without headers of the caller's, the gate's own record (fetch reads a record faster than a Headers).
    let headers: Headers | Readonly<Record<string, string>> = gate.headers;
    if (source?.headers || init.headers || init.body != null) {
      const h = new Headers(source?.headers as ConstructorParameters<typeof Headers>[0]);
      if (init.headers) new Headers(init.headers as ConstructorParameters<typeof Headers>[0]).forEach((v, k) => h.set(k, v));
      h.set('user-agent', gate.userAgent);
      headers = h;
    }
    st = {
      gate,
      init,
      dispatcher: gate.dispatcher(gate.paced && init.politeness !== false),
      mode: init.redirect ?? 'follow',
      limit: init.maxRedirects ?? 20,
      url,
      parentUrl: null,
      method,
      headers,
      body: undefined,
      location: undefined,
    };
  } catch (err) {
    return Promise.reject(err);
  }
  const hasBody = init.body != null || (!!source?.arrayBuffer && st.method !== 'GET' && st.method !== 'HEAD');
  // A warm first hop (no body to buffer, the decision at hand) goes out at once: an async frame and
  // an await on the decision cost a warm request more than the decision itself.
  if (!hasBody) {
    const decision = init.decision?.url === st.url ? init.decision : canonical ? gate.decideNow(st.url) : undefined;
    if (decision !== undefined) {
      let sent: Promise<Response>;
      try {
        sent = send(st, decision);
      } catch (err) {
        return Promise.reject(err);
      }
      return sent.then((res) => answer(st, decision, res, 0) ?? hopsFrom(st, undefined, 1, res), unwrapClosed);
    }
  }
  return hopsFrom(st, source, 0, undefined);
}

/** The hops from `hop` on, the first one's body buffered first. */
async function hopsFrom(st: Hops, source: { arrayBuffer?: () => Promise<ArrayBuffer> } | undefined, hop: number, prev: Response | undefined): Promise<Response> {
  const init = st.init;
  if (prev === undefined) {
    // Buffer the body once so a 307/308 can send it again to the next hop.
    if (init.body != null) {
      const r = new Request(st.url, { method: 'POST', body: init.body as never, duplex: 'half' } as never);
      const type = r.headers.get('content-type');
      const h = st.headers as Headers;
      if (type && !h.has('content-type')) h.set('content-type', type);
      st.body = await r.arrayBuffer();
    } else if (source?.arrayBuffer && st.method !== 'GET' && st.method !== 'HEAD') {
      st.body = await source.arrayBuffer();
    }
  }
  for (; ; hop++) {
    if (prev !== undefined) {
      await next(st, prev, hop - 1);
      prev = undefined;
    }
    const decision = hop === 0 && init.decision?.url === st.url ? init.decision : await st.gate.check(st.url, init.signal ?? undefined);
    let res: Response;
    try {
      res = await send(st, decision);
    } catch (err) {
      unwrapClosed(err);
    }
    const done = answer(st, decision, res, hop);
    if (done !== undefined) return done;
    prev = res;
  }
}

/** Rethrow `err`, or the GateClosedError behind it: fetch wraps a dispatch error as its bare
 *  `TypeError: fetch failed`, which would hide that the gate was closed under the wait. */
function unwrapClosed(err: unknown): never {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  throw cause instanceof GateClosedError ? cause : err;
}

/** Send the hop at `st.url` under `decision`. @throws RobotsBlockedError for a hop that must not go. */
function send(st: Hops, decision: Decision): Promise<Response> {
  const blocked = st.gate.blocked(decision);
  if (blocked !== undefined) {
    st.init.onHop?.({ url: st.url, parentUrl: st.parentUrl, decision: (blocked as { decision?: Decision }).decision ?? decision });
    throw blocked;
  }
  const init = st.init;
  // Only what differs from fetch's defaults: each member given costs fetch a conversion.
  const req: RequestInit & { dispatcher: Dispatcher } = { headers: st.headers as HeadersInit, redirect: 'manual', dispatcher: st.dispatcher };
  if (st.method !== 'GET') req.method = st.method;
  if (st.body !== undefined) req.body = st.body;
  if (init.signal) req.signal = init.signal;
  if (init.keepalive !== undefined) req.keepalive = init.keepalive;
  return undiciFetch(st.url, req as never) as unknown as Promise<Response>;
}

/** The hop's response as gate.fetch's answer, or undefined when the redirect it names is followed
 *  (`st.location` set). */
function answer(st: Hops, decision: Decision, res: Response, hop: number): Response | undefined {
  const rawLocation = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
  let location: string | undefined;
  if (rawLocation !== null) {
    try {
      location = new URL(locationAsSent(rawLocation), st.url).href;
    } catch {
      location = undefined;
    }
  }
  st.init.onHop?.({ url: st.url, parentUrl: st.parentUrl, decision, status: res.status, ...(location !== undefined ? { location } : {}) });
  if (location === undefined || st.mode === 'manual') {
    // Each hop is a fetch of its own with redirect: 'manual', so undici's answer says not
    // redirected; the caller's fetch followed hops, and says so as fetch does.
    if (hop > 0) Object.defineProperty(res, 'redirected', { value: true });
    return res;
  }
  st.location = location;
  return undefined;
}

/** From a hop's redirect to the next hop: `st` then names the next request. */
async function next(st: Hops, res: Response, hop: number): Promise<void> {
  const url = st.url;
  const location = st.location!;
  await res.body?.cancel();
  if (st.mode === 'error') throw new TypeError(`redirect from ${url} to ${location} with redirect: 'error'`);
  if (hop >= st.limit) throw new TooManyRedirectsError(url, st.limit);
  const to = parseHttpUrl(location);
  to.hash = '';
  const method = st.method;
  const headers = st.headers;
  // fetch's rules (WHATWG Fetch §4.4): 303, and 301/302 after POST, become a GET without body.
  if ((res.status === 303 && method !== 'GET' && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
    st.method = 'GET';
    st.body = undefined;
    if (headers instanceof Headers) for (const h of BODY_HEADERS) headers.delete(h);
  }
  // Credentials for one origin are not sent to another.
  if (headers instanceof Headers && to.origin !== new URL(url).origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
  st.parentUrl = url;
  st.url = to.href;
}
