// The gate as an undici interceptor: compose it into any Dispatcher (or the global one) and every
// request through it is checked first, then waits for its host's slot. fetch() follows redirects
// by dispatching each hop again, so each hop is checked and spaced against its own host; so does
// undici's redirect interceptor composed outside the gate. Below the gate it would follow hops the
// gate never sees (a disallowed path on another host was sent, under its Crawl-delay): there it is
// switched off, and a request that asks for redirects itself (`maxRedirections`) has them followed
// here, each hop dispatched through the gate again. undici's retry interceptor is the same case: a
// retry below the gate re-sent a 503'd request 500 ms later, past the back-off and the interval, so
// below it is switched off (`maxRetries: 0`), and a request's own `retryOptions` are kept here, each
// retry dispatched through the gate again.
//
// The site a request names is its Host header's when it carries one (RFC 9110 §7.2: the target URI
// is rebuilt from it): `request('http://a.test/x', { headers: { host: 'b.test' } })` is a request to
// b.test, and was sent under a.test's policy and slot while b.test's robots.txt disallowed all.
import { RedirectHandler, RetryHandler, type Dispatcher } from 'undici';
import { kRobotsFetch } from '../fetcher/robots-fetcher.js';
import { closedBeforeCall } from './errors.js';
import { dispatchPaced, isPaced } from './pace.js';
import type { GateDoor } from './politeness.js';

type DispatchHandler = Dispatcher.DispatchHandler;

export function gateInterceptor(gate: GateDoor): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => {
    const gated = function robotsGateInterceptor(opts: Dispatcher.DispatchOptions, handler: DispatchHandler): boolean {
      // The gate's own robots.txt fetches pass as they are: checking them would recurse.
      if ((opts as unknown as Record<symbol, unknown>)[kRobotsFetch]) return dispatch(opts, handler);
      const { maxRedirections, retryOptions, ...rest } = opts as Dispatcher.DispatchOptions & { maxRedirections?: number; retryOptions?: RetryOptions };
      if (typeof maxRedirections === 'number' && maxRedirections > 0) return gated({ ...rest, ...(retryOptions ? { retryOptions } : {}) } as Dispatcher.DispatchOptions, new RedirectHandler(gated, maxRedirections, rest, handler));
      if (retryOptions !== undefined && !isNoRetry(retryOptions)) {
        return gated({ ...rest }, new RetryHandler({ ...rest, retryOptions }, { handler, dispatch: gated }) as unknown as DispatchHandler);
      }
      // A request made after gate.close() never waited for a slot: its GateClosedError says it was refused.
      if (gate.politeness.closed) handler = refusedAfterClose(handler);
      // 0: the way undici keeps a dispatcher below its own redirect interceptor from redirecting;
      // maxRetries 0 keeps a retry interceptor below from re-sending what the gate let go once.
      let withUa: Dispatcher.DispatchOptions;
      let url: string;
      try {
        const sent = withUserAgent(opts.headers, gate.userAgent);
        withUa = { ...rest, maxRedirections: 0, retryOptions: NO_RETRY, headers: sent.headers } as Dispatcher.DispatchOptions;
        const origin = typeof opts.origin === 'string' ? new URL(opts.origin).origin : (opts.origin as URL).origin;
        url = targetOrigin(origin, sent.host) + opts.path;
      } catch (err) {
        handler.onResponseError?.(null as never, err as Error);
        return true;
      }
      const origin = url.slice(0, url.length - opts.path.length);
      // A request that holds its slot already (gate.fetch through a dispatcher composed with this).
      const terms = gate.paced && !isPaced(opts) ? gate.politeness.terms(origin, opts.path) : undefined;
      // robots.txt, when this origin needs it, goes out the way this request would: `dispatch`.
      // A caller's own request for /robots.txt is checked too (§2.2.2 allows it): the load tells
      // its wait the host's Crawl-delay, which spacing it under the floor alone did not keep.
      return dispatchPaced(dispatch, withUa, handler, terms, async (signal) => {
        const decision = await gate.check(url, signal, dispatch);
        const blocked = gate.blocked(decision);
        if (blocked !== undefined) throw blocked;
        // An exempt request (the pipeline's own API) is not the crawler's: it keeps its own headers.
        return decision.reason === 'exempt' ? ({ ...rest, maxRedirections: 0, retryOptions: NO_RETRY } as Dispatcher.DispatchOptions) : withUa;
      });
    };
    return gated;
  };
}

/** `handler` with a GateClosedError reported as a request made after gate.close() gets it (see
 *  closedBeforeCall); everything else forwarded as it is. compose() hands interceptors handlers
 *  in undici's controller form, so these six callbacks are all there is to forward. */
function refusedAfterClose(handler: DispatchHandler): DispatchHandler {
  return {
    onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
    onRequestUpgrade: (c, status, headers, socket) => handler.onRequestUpgrade?.(c, status, headers, socket),
    onResponseStart: (c, status, headers, message) => handler.onResponseStart?.(c, status, headers, message),
    onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
    onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
    onResponseError: (c, err) => handler.onResponseError?.(c, closedBeforeCall(err) as Error),
  };
}

type RetryOptions = NonNullable<ConstructorParameters<typeof RetryHandler>[0]['retryOptions']>;
// throwOnError false: an answer it will not retry is handed on as it is (a 503 stays a response).
const NO_RETRY: RetryOptions = Object.freeze({ maxRetries: 0, throwOnError: false });
const isNoRetry = (r: RetryOptions) => r.maxRetries === 0;

/**
 * The origin a request names: `origin`, or the one its Host header names (same scheme).
 * @throws TypeError for a Host header that is no host[:port].
 */
function targetOrigin(origin: string, host: string | undefined): string {
  if (host === undefined) return origin;
  const scheme = origin.slice(0, origin.indexOf(':') + 1);
  let named: URL | undefined;
  try {
    named = /[/?#@\\]/.test(host) ? undefined : new URL(`${scheme}//${host.trim()}`);
  } catch {
    named = undefined;
  }
  if (named === undefined || named.host === '') {
    throw new TypeError(`invalid Host header ${JSON.stringify(host)}: a host[:port] is needed to know which site's robots.txt governs the request`);
  }
  return named.origin;
}

/**
 * The same headers (any form undici accepts) with User-Agent replaced by `ua`, and the Host header's
 * value (undefined without one), read in the same walk.
 * @throws TypeError for more than one Host header: a check reading the first while undici sent the
 *   last let `['host', 'a.test', 'host', 'b.test']` be decided as a.test and reach b.test.
 */
function withUserAgent(headers: Dispatcher.DispatchOptions['headers'], ua: string): { headers: Record<string, string | string[]>; host: string | undefined } {
  const out: Record<string, string | string[]> = {};
  let hosts = 0;
  let host: string | undefined;
  const add = (k: string, v: string | string[] | undefined) => {
    if (v === undefined) return;
    const name = k.toLowerCase();
    if (name === 'user-agent') return;
    if (name === 'host') {
      hosts += Array.isArray(v) ? v.length : 1;
      host = String(Array.isArray(v) ? v[0] : v);
    }
    out[k] = v;
  };
  if (headers == null) {
    // nothing
  } else if (Array.isArray(headers) && !Array.isArray(headers[0])) {
    // undici's flat form, [name, value, name, value, …]; an array of [name, value] pairs is read
    // as the iterable it also is, below.
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), headers[i + 1] as string | string[]);
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string | string[] | undefined]>) add(k, v);
  } else {
    for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) add(k, v);
  }
  if (hosts > 1) throw new TypeError(`${hosts} host headers: a request names one site`);
  out['user-agent'] = ua;
  return { headers: out, host };
}
