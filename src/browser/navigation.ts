// A frame's navigation, sent hop by hop. Playwright routes only the first request of a redirect
// chain and lets the browser follow the rest unseen, so navigations are fetched here with
// redirects off and every Location is put to the gate before it is requested: each hop is
// governed by its own origin's robots.txt (RFC 9309 §2.2.2 applies per URL, wherever it came from).
import type { Route } from 'playwright-core';
import type { Decision } from '../gate/types.js';
import type { HopRequest, HopResponse } from './types.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers never carried to another origin on a redirect (as browsers and undici do). */
const CROSS_ORIGIN_DROP = new Set(['cookie', 'authorization', 'proxy-authorization', 'host']);

export interface NavigationHooks {
  /** Decide one hop's URL (and report it); anything but an allowed decision stops the navigation
   *  before the hop is sent. */
  checkHop(url: string, from: string): Promise<Decision | null>;
  fetchHop?: (hop: HopRequest) => Promise<HopResponse>;
  userAgent: string | undefined;
  maxRedirects: number;
}

export type NavigationOutcome =
  | { kind: 'fulfilled'; finalUrl: string; hops: number }
  | { kind: 'blocked'; url: string }
  | { kind: 'failed'; error: Error };

/** The next hop's request after a 3xx, per the Fetch standard's redirect steps (method rewrite). */
function nextHop(prev: HopRequest, status: number, location: string): HopRequest {
  const url = new URL(location, prev.url).href;
  const toGet = status === 303 ? prev.method !== 'HEAD' : (status === 301 || status === 302) && prev.method === 'POST';
  const crossOrigin = new URL(url).origin !== new URL(prev.url).origin;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(prev.headers)) {
    const lower = name.toLowerCase();
    if (crossOrigin && CROSS_ORIGIN_DROP.has(lower)) continue;
    if (toGet && (lower === 'content-type' || lower === 'content-length')) continue;
    headers[lower] = value;
  }
  return { url, method: toGet ? 'GET' : prev.method, headers, postData: toGet ? null : prev.postData };
}

/** One hop's answer, and how to hand it to the frame if it is the last. */
interface Fetched {
  status: number;
  location: string | undefined;
  fulfill(): Promise<void>;
}

async function sendHop(route: Route, hop: HopRequest, fetchHop: NavigationHooks['fetchHop']): Promise<Fetched> {
  if (fetchHop) {
    const res = await fetchHop(hop);
    // Content-Encoding and lengths describe the wire bytes; the body here is already decoded.
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      const lower = k.toLowerCase();
      if (lower !== 'content-encoding' && lower !== 'content-length' && lower !== 'transfer-encoding') headers[lower] = v;
    }
    return {
      status: res.status,
      location: headers['location'],
      fulfill: () => route.fulfill({ status: res.status, headers, body: res.body }),
    };
  }
  const res = await route.fetch({
    url: hop.url,
    method: hop.method,
    headers: hop.headers,
    ...(hop.postData ? { postData: hop.postData } : {}),
    maxRedirects: 0,
  });
  return { status: res.status(), location: res.headers()['location'], fulfill: () => route.fulfill({ response: res }) };
}

/**
 * Sends the routed navigation hop by hop and fulfills the frame with the final response.
 * The frame keeps the first URL as its address (Playwright cannot fulfill under another URL).
 */
export async function runNavigation(route: Route, hooks: NavigationHooks): Promise<NavigationOutcome> {
  const request = route.request();
  const headers = { ...request.headers() };
  if (hooks.userAgent) headers['user-agent'] = hooks.userAgent;
  let hop: HopRequest = { url: request.url(), method: request.method(), headers, postData: request.postDataBuffer() };
  for (let hops = 0; ; hops++) {
    let fetched: Fetched;
    try {
      fetched = await sendHop(route, hop, hooks.fetchHop);
    } catch (err) {
      return { kind: 'failed', error: err instanceof Error ? err : new Error(String(err)) };
    }
    if (!REDIRECTS.has(fetched.status) || !fetched.location) {
      await fetched.fulfill();
      return { kind: 'fulfilled', finalUrl: hop.url, hops };
    }
    if (hops >= hooks.maxRedirects) {
      return { kind: 'failed', error: new Error(`more than ${hooks.maxRedirects} redirects from ${request.url()}`) };
    }
    const next = nextHop(hop, fetched.status, fetched.location);
    const decision = await hooks.checkHop(next.url, hop.url);
    if (!decision?.allowed) return { kind: 'blocked', url: next.url };
    hop = next;
  }
}
