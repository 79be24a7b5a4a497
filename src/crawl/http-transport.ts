// The default DocumentTransport: plain HTTP through the gate's own fetch, which follows redirects
// hop by hop and puts each hop to the policy of its own origin before a byte is sent to it. This
// transport only watches the hops (for the audit), bounds the time and size, and reads the body.
import type { Dispatcher } from 'undici';
import { Readable } from 'node:stream';
import { readCappedBody } from '../fetcher/read-body.js';
import { locationAsSent } from '../fetcher/url.js';
import type { GateFetchInit } from '../gate/gated-fetch.js';
import type { Decision } from '../gate/types.js';
import type { DocumentTransport, Hop, TransportFetchOptions, TransportResult } from './types.js';

/** The part of RobotsGate this transport uses. */
export interface FetchingGate {
  fetch(input: string, init?: GateFetchInit): Promise<Response>;
  check(url: string): Promise<Decision>;
}

export interface HttpTransportOptions {
  readonly gate: FetchingGate;
  /** Redirect hops followed at most after the first request. Default 5. */
  readonly maxRedirects?: number;
  /** Body bytes kept at most; the rest is not read. Default 10 MiB. */
  readonly maxBytes?: number;
  /** Whole request, body included (ms). Default 30,000. */
  readonly timeoutMs?: number;
  /** Follow redirects here (default true), each hop paced by gate.fetch. Never for a request
   *  whose slot the caller holds (CrawlJob's): the result's `redirectTo` names the target and the
   *  crawl schedules it as a request of its own, so every hop keeps its host's interval. */
  readonly followRedirects?: boolean;
  /** The dispatcher the gate sends through, with the gate's politeness off (the caller keeps each
   *  host's slot, as the crawl does). Given, with `followRedirects: false`, a URL whose allowed
   *  decision the caller passes and whose slot it holds is dispatched on it directly instead of
   *  through gate.fetch: the same request, without fetch's Request, Headers, Response and web
   *  stream objects (a fifth of a fast crawl's time) or request()'s body stream. */
  readonly dispatcher?: Dispatcher;
  /** The User-Agent sent on that path: the gate's. */
  readonly userAgent?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class HttpTransport implements DocumentTransport {
  private readonly maxRedirects: number;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly follow: boolean;

  /** The same object for every request (undici reads it, never changes it). */
  private readonly requestHeaders: Readonly<Record<string, string>>;

  constructor(private readonly options: HttpTransportOptions) {
    this.requestHeaders = Object.freeze({ 'user-agent': options.userAgent ?? '', accept: '*/*' });
    this.maxRedirects = options.maxRedirects ?? 5;
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.follow = options.followRedirects ?? true;
  }

  async fetch(url: string, options: TransportFetchOptions = {}): Promise<TransportResult> {
    const d = options.decision;
    // A caller holding the host's slot (the crawl) is given each redirect target to schedule as a
    // request of its own: followed here, the hops would go out unspaced, the slot being taken.
    const follow = this.follow && !options.slotHeld;
    if (this.options.dispatcher && !follow && options.slotHeld && d?.allowed && d.url === url) return this.send(url, d, options.signal, options.lastForHost === true);
    const hops: Hop[] = [];
    let hopStart = Date.now();
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const onHop: GateFetchInit['onHop'] = (h) => {
      const now = Date.now();
      hops.push({
        url: h.url,
        decision: h.decision,
        startedAt: hopStart,
        endedAt: now,
        status: h.status ?? null,
        headers: {},
        location: maskedLocation(h.location, h.url) ?? null,
        blocked: h.status === undefined,
        error: null,
      });
      hopStart = now;
    };
    let res: Response;
    try {
      res = await this.options.gate.fetch(url, {
        onHop,
        maxRedirects: this.maxRedirects,
        signal,
        redirect: follow ? 'follow' : 'manual',
        ...(options.slotHeld ? { politeness: false } : {}),
        ...(options.decision ? { decision: options.decision } : {}),
      });
    } catch (err) {
      const last = hops[hops.length - 1];
      // Blocked (RobotsBlockedError: the hop is recorded) or the redirect limit reached after a
      // 3xx: the fetch ends at that hop.
      if (last && (last.blocked || (last.location !== null && isRedirectLimit(err)))) {
        return { hops, body: new Uint8Array(0), truncated: false };
      }
      const failed = last?.location ?? url;
      const decision = last === undefined && options.decision ? options.decision : await this.options.gate.check(failed);
      hops.push({
        url: failed,
        decision,
        startedAt: hopStart,
        endedAt: Date.now(),
        status: null,
        headers: {},
        location: null,
        blocked: false,
        error: errorOf(err, timeout),
      });
      return { hops, body: new Uint8Array(0), truncated: false };
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    if (headers.location !== undefined) headers.location = maskedLocation(locationAsSent(headers.location), url)!;
    const { body, truncated, error } = await this.readBody(res, timeout);
    const last = hops[hops.length - 1]!;
    hops[hops.length - 1] = { ...last, endedAt: Date.now(), headers, error };
    return { hops, body, truncated, redirectTo: follow ? null : last.location };
  }

  private async readBody(res: Response, timeout: AbortSignal): Promise<{ body: Uint8Array; truncated: boolean; error: Hop['error'] }> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    if (res.body === null) return { body: new Uint8Array(0), truncated, error: null };
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (size + value.byteLength > this.maxBytes) {
          chunks.push(value.subarray(0, this.maxBytes - size));
          size = this.maxBytes;
          truncated = true;
          await reader.cancel();
          break;
        }
        chunks.push(value);
        size += value.byteLength;
      }
    } catch (err) {
      return { body: Buffer.concat(chunks, size), truncated: true, error: errorOf(err, timeout) };
    }
    return { body: Buffer.concat(chunks, size), truncated, error: null };
  }

  /** One request, decided and in its slot, dispatched straight to undici's dispatcher with a
   *  handler of ours (ResponseReader): no redirect followed, none checked. */
  private async send(url: string, decision: Decision, outer: AbortSignal | undefined, last: boolean): Promise<TransportResult> {
    const startedAt = Date.now();
    let target: URL;
    try {
      target = new URL(url);
    } catch (err) {
      return { hops: [{ url, decision, startedAt, endedAt: Date.now(), status: null, headers: {}, location: null, blocked: false, error: errorOf(err, NOT_ABORTED) }], body: new Uint8Array(0), truncated: false, redirectTo: null };
    }
    let timedOut = false;
    const reader = new ResponseReader(this.maxBytes);
    const timer = setTimeout(() => {
      timedOut = true;
      reader.abort(abortError());
    }, this.timeoutMs);
    const watch = outer === undefined ? undefined : inFlightUnder(outer);
    if (outer?.aborted) reader.abort(abortError());
    else watch?.add(reader);
    try {
      // Aborted already (Ctrl-C while the URL waited for its slot): nothing is dispatched.
      if (reader.aborted) reader.settle(reader.reason);
      else {
        try {
          this.options.dispatcher!.dispatch({ origin: target.origin, path: pathOf(target), method: 'GET', headers: this.requestHeaders, reset: last }, reader);
        } catch (err) {
          reader.settle(err);
        }
      }
      const read = await reader.done;
      const hop = reader.status === 0 ? undefined : responseHop(reader.status, reader.headers, url);
      if (read !== undefined) {
        return {
          hops: [{ url, decision, startedAt, endedAt: Date.now(), status: null, headers: {}, location: null, blocked: false, ...hop, error: timedOut ? TIMED_OUT : errorOf(read, reader, false) }],
          body: reader.body(),
          truncated: hop !== undefined,
          redirectTo: hop?.location ?? null,
        };
      }
      const encoding = hop!.headers['content-encoding']?.trim();
      if (encoding && encoding.toLowerCase() !== 'identity') return await decodedResult(url, decision, startedAt, hop!, reader, encoding, this.maxBytes);
      return { hops: [{ url, decision, startedAt, endedAt: Date.now(), ...hop!, blocked: false, error: null }], body: reader.body(), truncated: reader.truncated, redirectTo: hop!.location };
    } finally {
      clearTimeout(timer);
      watch?.delete(reader);
    }
  }

  async close(): Promise<void> {}
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * A response the server sent content-coded though none was asked for (no Accept-Encoding): its
 * body decoded (gzip, deflate, br; at most `max` bytes), as gate.fetch's fetch() decodes it. Kept
 * coded, the document saved and hashed was the gzip, and under --purpose its <meta> usage
 * signals went unread, so a page that reserved its use was kept. A coding that cannot be undone
 * (corrupt, unknown) is the hop's error, and nothing is kept.
 */
async function decodedResult(url: string, decision: Decision, startedAt: number, hop: Pick<Hop, 'status' | 'headers' | 'location'>, reader: ResponseReader, encoding: string, max: number): Promise<TransportResult> {
  try {
    const d = await readCappedBody(Readable.from([reader.body()]), encoding, max, NEVER_ABORTED);
    return { hops: [{ url, decision, startedAt, endedAt: Date.now(), ...hop, blocked: false, error: null }], body: d.bytes, truncated: reader.truncated || d.truncated, redirectTo: hop.location };
  } catch (err) {
    const error = { code: 'ERR_CONTENT_DECODING', message: `the body could not be decoded (Content-Encoding: ${encoding}): ${(err as Error).message}` };
    return { hops: [{ url, decision, startedAt, endedAt: Date.now(), ...hop, blocked: false, error }], body: new Uint8Array(0), truncated: false, redirectTo: hop.location };
  }
}

/** The response's header fields with one string each, as fetch's Headers gave them: repeated
 *  fields joined, Set-Cookie the last one. undici's own object when no field repeats (nearly every
 *  response), a copy otherwise. */
function singleValued(h: Dispatcher.ResponseData['headers']): Record<string, string> {
  let plain = true;
  for (const k in h) {
    if (typeof h[k] !== 'string') {
      plain = false;
      break;
    }
  }
  if (plain) return h as Record<string, string>;
  const copy: Record<string, string> = {};
  for (const k in h) {
    const v = h[k];
    if (v !== undefined) copy[k] = typeof v === 'string' ? v : k === 'set-cookie' ? v[v.length - 1]! : v.join(', ');
  }
  return copy;
}

/** The requests in flight under each caller's signal, all cancelled by one listener on it: one
 *  listener added and removed per request was 2 % of a fast crawl's main thread (the crawl passes
 *  the same signal with every request). */
const inFlight = new WeakMap<AbortSignal, Set<ResponseReader>>();

function inFlightUnder(signal: AbortSignal): Set<ResponseReader> {
  let set = inFlight.get(signal);
  if (set === undefined) {
    const cancels = new Set<ResponseReader>();
    signal.addEventListener('abort', () => {
      for (const c of cancels) c.abort(abortError());
      cancels.clear();
    }, { once: true });
    inFlight.set(signal, (set = cancels));
  }
  return set;
}

/** What AbortController.abort() gives as its reason, made only when a request is aborted. */
function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

const TIMED_OUT = { code: 'ETIMEDOUT', message: 'no complete response within the time limit' } as const;

/** undici's request() and its body stream cost about 45 µs of main-thread time a request on
 *  this machine (a request() loop used a quarter more CPU than the same loop on dispatch()): this
 *  handler takes the status, the headers and the body's chunks as the dispatcher gives them,
 *  keeping at most `max` bytes (the rest is not read).
 *  `done` settles once: undefined when the response ended or was cut at `max`, else the error
 *  (`status` is 0 when it came before the response's head). */
class ResponseReader implements Dispatcher.DispatchHandler {
  status = 0;
  headers: Record<string, string> = {};
  truncated = false;
  aborted = false;
  reason: unknown = undefined;
  readonly done: Promise<unknown>;
  #resolve!: (err: unknown) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(private readonly max: number) {
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** Abort the request (a timeout, the caller's signal). Not started yet (undici starts it once
   *  connected, and a connection can hang until undici's own 10 s connect timeout), it ends now,
   *  and is aborted as it starts: nothing is sent. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    if (this.#controller === undefined) this.settle(reason);
    else this.#controller.abort(reason as Error);
  }

  settle(err: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(err);
  }

  body(): Uint8Array {
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.aborted) controller.abort(this.reason as Error);
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Dispatcher.ResponseData['headers']): void {
    // A 1xx head (103 Early Hints) comes before the response: not the response.
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = singleValued(headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    if (this.#size + chunk.byteLength > this.max) {
      this.#chunks.push(chunk.subarray(0, this.max - this.#size));
      this.#size = this.max;
      this.truncated = true;
      this.settle(undefined);
      controller.abort(new Error('body over the size limit'));
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
  }

  onResponseEnd(): void {
    this.settle(undefined);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.settle(err);
  }
}

/** A response's status, its headers (the Location field masked, see maskedLocation) and, for a
 *  redirect, its target resolved against the request's URL (null for any other response). */
function responseHop(status: number, headers: Record<string, string>, url: string): Pick<Hop, 'status' | 'headers' | 'location'> {
  const raw = headers.location;
  const masked = raw === undefined ? undefined : maskedLocation(locationAsSent(raw), url);
  if (masked !== raw) headers = { ...headers, location: masked! };
  let location: string | null = null;
  if (masked !== undefined && REDIRECTS.has(status)) {
    try {
      location = new URL(masked, url).href;
    } catch {
      location = null;
    }
  }
  return { status, headers, location };
}

/** A Location field or a hop's target with any user:password@ shown as `***@` (resolved against
 *  `base`): credentials in a URL never reach the audit (README), whoever sent them. */
function maskedLocation(value: string | undefined, base: string): string | undefined {
  if (value === undefined || !value.includes('@')) return value;
  try {
    const u = new URL(value, base);
    if (u.username === '' && u.password === '') return value;
    u.username = '***';
    u.password = '';
    return u.href;
  } catch {
    return value;
  }
}

const NOT_ABORTED = { aborted: false } as const;

/** The path and query as the URL was decided: from its serialisation, which keeps an empty query
 *  (`/a?`; `pathname + search` drops it, and `Disallow: /a$` would then be decided for `/a?` and
 *  `/a` sent). The fragment is never sent. */
function pathOf(u: URL): string {
  const href = u.href;
  const origin = u.origin;
  if (!href.startsWith(origin)) return u.pathname + u.search;
  const hash = href.indexOf('#', origin.length);
  return hash < 0 ? href.slice(origin.length) : href.slice(origin.length, hash);
}

function isRedirectLimit(err: unknown): boolean {
  return (err as { code?: string }).code === 'ERR_TOO_MANY_REDIRECTS';
}

function errorOf(err: unknown, timeout: { readonly aborted: boolean }, isTimeout = true): { code: string; message: string } {
  if (isTimeout && timeout.aborted) return TIMED_OUT;
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  // A DOMException's `code` is its legacy number (20 for AbortError): its name says it.
  const code = e.cause?.code ?? (typeof e.code === 'string' ? e.code : undefined) ?? e.name ?? 'ERR_NETWORK';
  const message = e.cause?.message ?? e.message ?? String(err);
  return { code, message };
}
