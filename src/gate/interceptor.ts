// The gate as an undici interceptor: compose it into any Dispatcher (or the global one) and every
// request through it is checked first. fetch() follows redirects by dispatching each hop again, so
// each hop is checked too.
import type { Dispatcher } from 'undici';
import { kRobotsFetch } from '../fetcher/robots-fetcher.js';
import { RobotsBlockedError } from './errors.js';
import type { Decision } from './types.js';

interface Checker {
  readonly userAgent: string;
  check(url: string): Promise<Decision>;
}

type DispatchHandler = Dispatcher.DispatchHandler;

export function gateInterceptor(gate: Checker): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) =>
    function robotsGateInterceptor(opts: Dispatcher.DispatchOptions, handler: DispatchHandler): boolean {
      // The gate's own robots.txt fetches pass as they are: checking them would recurse.
      if ((opts as unknown as Record<symbol, unknown>)[kRobotsFetch]) return dispatch(opts, handler);
      const withUa = { ...opts, headers: withUserAgent(opts.headers, gate.userAgent) } as Dispatcher.DispatchOptions;
      let url: string;
      try {
        const origin = typeof opts.origin === 'string' ? new URL(opts.origin).origin : (opts.origin as URL).origin;
        url = origin + opts.path;
      } catch (err) {
        handler.onResponseError?.(null as never, err as Error);
        return true;
      }
      // §2.2.2: /robots.txt itself is always allowed, and checking it would fetch it twice.
      if (opts.path === '/robots.txt') return dispatch(withUa, handler);
      gate.check(url).then(
        (decision) => {
          if (!decision.allowed) return handler.onResponseError?.(null as never, new RobotsBlockedError(decision));
          try {
            dispatch(withUa, handler);
          } catch (err) {
            handler.onResponseError?.(null as never, err as Error);
          }
        },
        (err: Error) => handler.onResponseError?.(null as never, err),
      );
      return true;
    };
}

/** The same headers (any form undici accepts) with User-Agent replaced by `ua`. */
function withUserAgent(headers: Dispatcher.DispatchOptions['headers'], ua: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const add = (k: string, v: string | string[] | undefined) => {
    if (v === undefined) return;
    if (k.toLowerCase() !== 'user-agent') out[k] = v;
  };
  if (headers == null) {
    // nothing
  } else if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), headers[i + 1] as string | string[]);
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string | string[] | undefined]>) add(k, v);
  } else {
    for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) add(k, v);
  }
  out['user-agent'] = ua;
  return out;
}
