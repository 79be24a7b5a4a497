// Fetching one origin's /robots.txt (RFC 9309 §2.3): status classes, redirects, size and time caps.
// Never throws for anything the server or the network does: every outcome is a result.
import { createHash } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { readCappedBody } from './read-body.js';
import { locationAsSent, robotsUrlOf } from './url.js';

/** Marks the fetcher's own requests in undici dispatch options, so a gate interceptor composed into
 *  the same dispatcher lets them through instead of recursing into another robots.txt check. */
export const kRobotsFetch: unique symbol = Symbol.for('robots-gate.robots-fetch') as never;

/** The fetch's time limit, handed to the dispatcher with each request (under this symbol in the
 *  dispatch options): time spent waiting for the host's politeness slot is not the server's, so
 *  a pacing step pauses the clock while it waits. */
export const kRobotsClock: unique symbol = Symbol.for('robots-gate.robots-clock') as never;
export interface RobotsFetchClock {
  pause(): void;
  resume(): void;
  /** A pacing step gave the host's slot back: the response ended at `at` (ms since epoch), the
   *  moment the host's interval counts from. The result's fetchedAt is that moment, so a report
   *  that measures the next request's gap from fetchedAt sees what the server saw, not the later
   *  moment the body had been read and hashed (a loaded machine put 2 ms between them). */
  ended?(at: number): void;
}

export interface RobotsFetchOptions {
  /** Where to send the requests. */
  dispatcher: Dispatcher;
  /** The User-Agent header to send. */
  userAgent: string;
  /** Whole fetch, redirects and body included (ms). */
  timeoutMs: number;
  /** Decoded body bytes kept at most (after gzip/br/deflate decoding). */
  maxBytes: number;
  /** Redirect hops followed at most; one more, or a loop, makes the file unavailable (§2.3.1.2). */
  maxRedirects: number;
  /** Aborts the fetch early (the result is then unreachable, status `ABORT_ERR`). */
  signal?: AbortSignal;
  /** A copy the caller holds of the robots.txt at `url`, another origin's that a redirect reached:
   *  that hop is answered from it and not requested (§2.4 lets a crawler use a cached copy). */
  cachedHop?: (url: string) => Promise<CachedHop | undefined>;
}

/** Another origin's robots.txt as the caller holds it (see RobotsFetchOptions.cachedHop). */
export interface CachedHop {
  readonly status: number;
  readonly bytes: Buffer;
  readonly sha256: string;
  /** ms the copy stays fresh from now. */
  readonly maxAgeMs: number;
  readonly html?: boolean;
  readonly truncated?: boolean;
}

/** One response in the redirect chain. */
export interface RobotsFetchHop {
  readonly url: string;
  readonly status: number;
  readonly location?: string;
}

export interface RobotsFetchResult {
  readonly robotsUrl: string;
  /** The URL the final response came from. */
  readonly finalUrl: string;
  /** `parsed`: 2xx body; `unavailable`: 4xx (not 429), too many redirects, a loop; `unreachable`:
   *  429, 5xx, network or TLS failure, timeout, a body cut short or undecodable. */
  readonly kind: 'parsed' | 'unavailable' | 'unreachable';
  /** HTTP status of the final response, or the error's code (`ETIMEDOUT`, `ECONNREFUSED`, …). */
  readonly status: number | string;
  readonly redirectLimit?: boolean;
  /** With redirectLimit, when the chain was a loop: the URL the last redirect pointed back to
   *  (already requested in this chain; finalUrl itself for a file that redirects to itself). */
  readonly redirectLoop?: string;
  /** Decoded body (kind `parsed`): at most maxBytes; when truncated, cut back to the last line
   *  break so no partial rule is read (RFC 9309 §2.5). */
  readonly bytes?: Buffer;
  readonly truncated?: boolean;
  /** sha256 (hex) of `bytes`; null without a body. */
  readonly sha256: string | null;
  /** ms since epoch, when the final response (or the failure) arrived. */
  readonly fetchedAt: number;
  readonly durationMs: number;
  /** Cache-Control max-age of the final response, in ms, when it had one. */
  readonly maxAgeMs?: number;
  /** Retry-After of a 429/503, in ms, when it had one. */
  readonly retryAfterMs?: number;
  /** The body looks like an HTML page, not a robots.txt file. */
  readonly html?: boolean;
  readonly hops: readonly RobotsFetchHop[];
  /** What went wrong, for unreachable results. */
  readonly error?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The longest timeoutMs a Node timer holds (2^31-1 ms); a longer one fires at once, with a warning. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Fetch `<origin>/robots.txt` following RFC 9309 §2.3.
 * @param origin `scheme://host[:port]` as originOf gives it.
 * @throws RangeError for a timeoutMs outside 1..MAX_TIMEOUT_MS (a caller's mistake, not the server's).
 */
export async function fetchRobotsTxt(origin: string, options: RobotsFetchOptions): Promise<RobotsFetchResult> {
  // A NaN, negative or overlong timeout would fire at once and report a healthy server unreachable.
  if (!(options.timeoutMs >= 1 && options.timeoutMs <= MAX_TIMEOUT_MS)) {
    throw new RangeError(`robots.txt fetch timeoutMs must be a number of ms from 1 to ${MAX_TIMEOUT_MS}, got ${options.timeoutMs}`);
  }
  const robotsUrl = robotsUrlOf(origin);
  const started = Date.now();
  const controller = new AbortController();
  let timedOut = false;
  const fire = () => {
    timedOut = true;
    controller.abort();
  };
  let remaining = options.timeoutMs;
  let armedAt = started;
  let timer: NodeJS.Timeout | undefined = setTimeout(fire, remaining);
  let endedAt: number | undefined;
  const clock: RobotsFetchClock = {
    ended(at) {
      endedAt = at;
    },
    pause() {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      remaining -= Date.now() - armedAt;
    },
    resume() {
      if (timer !== undefined || timedOut) return;
      armedAt = Date.now();
      timer = setTimeout(fire, Math.max(0, remaining));
    },
  };
  const onOuterAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const hops: RobotsFetchHop[] = [];
  let url = robotsUrl;
  const done = (r: Omit<RobotsFetchResult, 'robotsUrl' | 'hops' | 'fetchedAt' | 'durationMs'>): RobotsFetchResult => {
    const now = Date.now();
    return { robotsUrl, hops, fetchedAt: Math.min(endedAt ?? now, now), durationMs: now - started, ...r };
  };
  try {
    const seen = new Set<string>([url]);
    for (;;) {
      let cached: CachedHop | undefined;
      if (hops.length > 0 && options.cachedHop !== undefined) {
        // Waiting for the caller's copy (its load may wait for its host's slot) is not the server's time.
        clock.pause();
        try {
          cached = await options.cachedHop(url);
        } finally {
          clock.resume();
        }
      }
      if (cached !== undefined) {
        hops.push({ url, status: cached.status });
        const { status, bytes, sha256, maxAgeMs, html, truncated } = cached;
        return done({ finalUrl: url, kind: 'parsed', status, bytes, sha256, maxAgeMs, ...(truncated ? { truncated } : {}), ...(html ? { html } : {}) });
      }
      endedAt = undefined;
      const res = await settledOrAborted(request(url, {
        dispatcher: options.dispatcher,
        method: 'GET',
        headers: {
          'user-agent': options.userAgent,
          accept: 'text/plain, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
        signal: controller.signal,
        [kRobotsFetch]: true,
        [kRobotsClock]: clock,
      } as Parameters<typeof request>[1]), controller.signal);
      const status = res.statusCode;
      const location = headerValue(res.headers, 'location');
      hops.push(location === undefined ? { url, status } : { url, status, location });

      if (status >= 200 && status < 300) {
        const { bytes: raw, truncated } = await readCappedBody(
          res.body,
          headerValue(res.headers, 'content-encoding'),
          options.maxBytes,
          controller.signal,
        );
        const bytes = truncated ? cutToLastLineBreak(raw) : raw;
        const maxAgeMs = cacheMaxAgeMs(headerValue(res.headers, 'cache-control'));
        const html = looksLikeHtml(bytes);
        return done({
          finalUrl: url,
          kind: 'parsed',
          status,
          bytes,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          ...(truncated ? { truncated } : {}),
          ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
          ...(html ? { html } : {}),
        });
      }
      // Nothing else needs the body: drop the connection rather than read what a hostile server sends.
      discard(res.body);

      if (status >= 300 && status < 400) {
        // §2.3.1.2: follow at least five hops, across origins too; beyond that (or a loop, or a
        // redirect nowhere usable) the file is unavailable.
        const next = location === undefined || !REDIRECTS.has(status) ? undefined : resolveLocation(location, url);
        if (next === undefined) return done({ finalUrl: url, kind: 'unavailable', status, sha256: null });
        if (seen.has(next)) {
          return done({ finalUrl: url, kind: 'unavailable', status, sha256: null, redirectLimit: true, redirectLoop: next });
        }
        if (hops.length > options.maxRedirects) {
          return done({ finalUrl: url, kind: 'unavailable', status, sha256: null, redirectLimit: true });
        }
        seen.add(next);
        url = next;
        continue;
      }
      if (status >= 400 && status < 500 && status !== 429) {
        // §2.3.1.3: unavailable; the crawler may access any resource.
        return done({ finalUrl: url, kind: 'unavailable', status, sha256: null });
      }
      // §2.3.1.4: 5xx (and anything stranger): unreachable, complete disallow. 429 is a 4xx, but it
      // says the server is overloaded, not that there is no file: reading it as unavailable would
      // open the site exactly when it asks for less traffic, so it counts as unreachable too.
      const retryAfterMs = retryAfter(headerValue(res.headers, 'retry-after'));
      return done({
        finalUrl: url,
        kind: 'unreachable',
        status,
        sha256: null,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      });
    }
  } catch (err) {
    // §2.3.1.4: network errors, timeouts, a body cut short or undecodable: unreachable. A file that
    // cannot be read is not a missing file.
    const code = timedOut ? 'ETIMEDOUT' : errorCode(err);
    const message = timedOut ? `robots.txt fetch took longer than ${options.timeoutMs} ms` : errorMessage(err);
    return done({ finalUrl: url, kind: 'unreachable', status: code, sha256: null, error: message });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/**
 * `pending`, or the signal's abort, whichever comes first. undici's request() does not hear its
 * signal while a ProxyAgent waits for the proxy's answer to CONNECT: a proxy that accepts and
 * never answers held a robots.txt fetch, and every check of its origin, past any timeout (undici
 * 7.30; its own limit on that answer is headersTimeout, 300 s). A response that arrives after
 * the abort has its body dropped.
 */
function settledOrAborted<T extends Dispatcher.ResponseData<unknown>>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    void pending.then((res) => discard(res.body), () => {});
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      void pending.then((res) => discard(res.body), () => {});
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (res) => {
        signal.removeEventListener('abort', onAbort);
        resolve(res);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Drop a body unread; the error its destruction raises is expected, not a failure. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function resolveLocation(location: string, base: string): string | undefined {
  try {
    const u = new URL(locationAsSent(location), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    // Credentials in a Location are neither sent (a robots.txt request carries none) nor recorded:
    // the final URL is in every decision, event and audit row of the origin.
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return undefined;
  }
}

/** The most specific code an error carries: a system code from the cause (ECONNRESET) beats
 *  undici's wrapper code (UND_ERR_SOCKET). */
function errorCode(err: unknown): string {
  let e = err as { code?: unknown; cause?: unknown; name?: unknown } | undefined;
  let best: string | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    if (typeof e.code === 'string') best = e.code;
    e = e.cause as typeof e;
  }
  if (best) return best;
  const name = (err as { name?: unknown })?.name;
  return typeof name === 'string' && name !== 'Error' ? name : 'ERR_NETWORK';
}

/** The error's message and its causes' (fetch's `fetch failed` says nothing; its cause, e.g. a
 *  proxy's `Proxy response (501) !== 200 when HTTP Tunneling`, says what happened). */
function errorMessage(err: unknown): string {
  const parts: string[] = [];
  let e = err as { message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    const m = typeof e.message === 'string' ? e.message : depth === 0 ? String(e) : '';
    if (m && !parts.includes(m)) parts.push(m);
    e = e.cause as typeof e;
  }
  return parts.join(': ') || 'network error';
}

function cutToLastLineBreak(bytes: Buffer): Buffer {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 0x0a || bytes[i] === 0x0d) return bytes.subarray(0, i + 1);
  }
  return bytes.subarray(0, 0);
}

function cacheMaxAgeMs(cacheControl: string | undefined): number | undefined {
  if (!cacheControl) return undefined;
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return m ? Math.min(Number(m[1]), 2 ** 31) * 1000 : undefined;
}

function retryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Content sniffing (the Content-Type is not trusted): does the body start like an HTML page? */
function looksLikeHtml(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 512).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  return /^\s*<(?:!doctype\s+html|html|head|body|title|meta|script|!--)/i.test(head);
}
