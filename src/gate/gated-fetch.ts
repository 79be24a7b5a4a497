// gate.fetch: fetch with redirects followed here, hop by hop, so each hop is checked against its
// own origin's robots.txt before a byte is sent to it.
import { fetch as undiciFetch, Headers, Request } from 'undici';
import { parseHttpUrl, splitCanonicalUrl } from '../fetcher/url.js';
import { TooManyRedirectsError } from './errors.js';
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

export async function gatedFetch(
  gate: GateDoor,
  input: string | URL | { url: string; method?: string; headers?: unknown; arrayBuffer?: () => Promise<ArrayBuffer> },
  init: GateFetchInit = {},
): Promise<Response> {
  const source = typeof input === 'string' || input instanceof URL ? undefined : input;
  const raw = source ? source.url : input;
  // A URL already in canonical form is sent as it is: no URL object on the hot path.
  let url = typeof raw === 'string' && splitCanonicalUrl(raw) ? raw : parseHttpUrl(raw as string | URL).href;
  let method = (init.method ?? source?.method ?? 'GET').toUpperCase();
  // One identity: the header sent is the one whose product token the rules were matched against.
  // Without headers of the caller's, the gate's own record (fetch reads a record faster than a Headers).
  let headers: Headers | Readonly<Record<string, string>> = gate.headers;
  if (source?.headers || init.headers || init.body != null) {
    const h = new Headers(source?.headers as ConstructorParameters<typeof Headers>[0]);
    if (init.headers) new Headers(init.headers as ConstructorParameters<typeof Headers>[0]).forEach((v, k) => h.set(k, v));
    h.set('user-agent', gate.userAgent);
    headers = h;
  }

  // Buffer the body once so a 307/308 can send it again to the next hop.
  let body: ArrayBuffer | undefined;
  if (init.body != null) {
    const r = new Request(url, { method: 'POST', body: init.body as never, duplex: 'half' } as never);
    const type = r.headers.get('content-type');
    const h = headers as Headers;
    if (type && !h.has('content-type')) h.set('content-type', type);
    body = await r.arrayBuffer();
  } else if (source?.arrayBuffer && method !== 'GET' && method !== 'HEAD') {
    body = await source.arrayBuffer();
  }

  const mode = init.redirect ?? 'follow';
  const limit = init.maxRedirects ?? 20;
  const dispatcher = gate.dispatcher(gate.paced && init.politeness !== false);
  const signal = init.signal ?? undefined;
  let parentUrl: string | null = null;
  for (let hop = 0; ; hop++) {
    const decision = hop === 0 && init.decision?.url === url ? init.decision : await gate.check(url, signal);
    const blocked = gate.blocked(decision);
    if (blocked !== undefined) {
      init.onHop?.({ url, parentUrl, decision: (blocked as { decision?: typeof decision }).decision ?? decision });
      throw blocked;
    }
    const res = (await undiciFetch(url, {
      method,
      headers,
      body: body ?? null,
      redirect: 'manual',
      signal: init.signal ?? null,
      dispatcher,
      ...(init.keepalive !== undefined ? { keepalive: init.keepalive } : {}),
    })) as unknown as Response;
    const rawLocation = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
    let location: string | undefined;
    if (rawLocation !== null) {
      try {
        location = new URL(rawLocation, url).href;
      } catch {
        location = undefined;
      }
    }
    init.onHop?.({ url, parentUrl, decision, status: res.status, ...(location !== undefined ? { location } : {}) });
    if (location === undefined || mode === 'manual') {
      // Each hop is a fetch of its own with redirect: 'manual', so undici's answer says not
      // redirected; the caller's fetch followed hops, and says so as fetch does.
      if (hop > 0) Object.defineProperty(res, 'redirected', { value: true });
      return res;
    }
    await res.body?.cancel();
    if (mode === 'error') throw new TypeError(`redirect from ${url} to ${location} with redirect: 'error'`);
    if (hop >= limit) throw new TooManyRedirectsError(url, limit);
    const next = parseHttpUrl(location);
    next.hash = '';
    // fetch's rules (WHATWG Fetch §4.4): 303, and 301/302 after POST, become a GET without body.
    if ((res.status === 303 && method !== 'GET' && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      if (headers instanceof Headers) for (const h of BODY_HEADERS) headers.delete(h);
    }
    // Credentials for one origin are not sent to another.
    if (headers instanceof Headers && next.origin !== new URL(url).origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
    parentUrl = url;
    url = next.href;
  }
}
