// The HTTP client of a gated Crawlee crawler: wraps whatever BaseHttpClient the crawler has
// (got-scraping by default) and follows redirects itself, hop by hop, so that each hop is decided
// against its own origin's robots.txt before it is sent (RFC 9309 §2.2.2 governs every URL
// requested) and takes its host's slot first. The inner client is only ever asked for one hop.
import type { BaseHttpClient, BaseHttpResponseData, HttpRequest, HttpResponse, RedirectHandler, StreamingHttpResponse } from 'crawlee';
import { RobotsBlockedError, TooManyRedirectsError } from '../gate/errors.js';
import { backoffUntil } from '../gate/pace.js';
import { DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS } from '../gate/options.js';
import type { Decision } from '../gate/types.js';
import type { Attempt } from './attempts.js';
import type { Slot, TakeSlot } from './pace.js';

export interface HopGate {
  check(url: string): Promise<Decision>;
  takeSlot: TakeSlot;
  /** Each hop's attempt, for the audit; absent: none written. */
  record?: (a: Attempt) => void;
  /** The User-Agent every hop is sent with (the gate's `userAgent`), replacing any the request
   *  carries, with got-scraping's browser header generation off: the identity robots.txt was
   *  matched against and the audit records is the one the server sees. Absent: headers as given. */
  userAgent?: string;
  /** How long (ms) the crawler waits for a response before it gives the request up (an
   *  HttpCrawler's navigation timeout), counted from the first hop: a wait for a host's slot ends
   *  then, so a request the crawler has abandoned is never sent. Absent: waits as long as it takes. */
  giveUpAfterMs?: number;
  /** The end (ms since epoch) of the back-off after a 429/503 that ended at `endedAt`
   *  (RobotsGate.backoffUntil: the gate's terms). Absent: the gate's defaults. */
  backoffUntil?: (retryAfter: string | undefined, endedAt: number) => number;
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Hop-relative facts kept between hops. */
interface Chain {
  url: string;
  parent: string | null;
  redirects: URL[];
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? String(v[0]) : typeof v === 'string' ? v : undefined;
}

/** Wraps `inner`: every hop decided, paced and (optionally) audited. */
export class GatedHttpClient implements BaseHttpClient {
  constructor(
    readonly inner: BaseHttpClient,
    private readonly g: HopGate,
  ) {}

  sendRequest<T extends 'text' | 'json' | 'buffer' = 'text'>(request: HttpRequest<T>): Promise<HttpResponse<T>> {
    return this.follow(
      request as HttpRequest,
      (r) => this.inner.sendRequest(r) as unknown as Promise<HttpResponse>,
      undefined,
      () => {},
      (res, done) => done(typeof res.body === 'string' || Buffer.isBuffer(res.body) ? Buffer.byteLength(res.body as string) : null),
    ) as unknown as Promise<HttpResponse<T>>;
  }

  stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    return this.follow(
      request,
      (r) => this.inner.stream(r),
      onRedirect,
      (res) => res.stream.resume(),
      (res, done) => {
        // The host's interval runs from the end of the body (or of the stream, however it ends).
        const end = () => done(res.downloadProgress?.transferred ?? null);
        res.stream.once('end', end);
        res.stream.once('close', end);
        res.stream.once('error', end);
      },
    );
  }

  private async follow<R extends BaseHttpResponseData>(
    request: HttpRequest,
    send: (r: HttpRequest) => Promise<R>,
    onRedirect: RedirectHandler | undefined,
    drain: (res: R) => void,
    onEnd: (res: R, done: (bytes: number | null) => void) => void,
  ): Promise<R> {
    const maxRedirects = request.maxRedirects ?? 10;
    const follow = request.followRedirect ?? true;
    const chain: Chain = { url: String(request.url), parent: null, redirects: [] };
    let method = request.method ?? 'GET';
    let body = request.body;
    let headers = { ...(request.headers ?? {}) } as Record<string, string | string[] | undefined>;
    // Crawlee does not cancel a request it timed out: its slot wait would go on, and send it.
    const limit = this.g.giveUpAfterMs === undefined ? undefined : AbortSignal.timeout(this.g.giveUpAfterMs);
    const giveUp = limit && request.signal ? AbortSignal.any([limit, request.signal]) : (limit ?? request.signal);
    for (;;) {
      const url = chain.url;
      const kind = chain.parent === null ? 'page' : 'redirect';
      const startMs = Date.now();
      const decision = await this.g.check(url);
      if (!decision.allowed) {
        this.g.record?.({ url, startMs, endMs: Date.now(), outcome: 'blocked', decision, kind, parentUrl: chain.parent, final: true });
        throw new RobotsBlockedError(decision);
      }
      const slot: Slot = await this.g.takeSlot(url, decision, giveUp);
      const sentMs = Date.now();
      let res: R;
      try {
        res = await send({ ...request, url, method, body, headers: this.identify(headers), followRedirect: false, ...this.noGenerator } as HttpRequest);
      } catch (err) {
        slot.release();
        this.g.record?.({
          url, startMs: sentMs, endMs: Date.now(), outcome: 'error', decision, kind, parentUrl: chain.parent, reason: 'network-error',
          error: String((err as Error)?.message ?? err), waitReason: slot.waitReason, intervalMs: slot.intervalMs, final: true,
        });
        throw err;
      }
      const location = header(res.headers as Record<string, unknown>, 'location');
      const wants = typeof follow === 'function' ? follow(res) : follow;
      const base = { url, startMs: sentMs, decision, kind, parentUrl: chain.parent, status: res.statusCode, waitReason: slot.waitReason, intervalMs: slot.intervalMs } as const;
      if (REDIRECT.has(res.statusCode) && location !== undefined && wants) {
        drain(res);
        slot.release();
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          // A Location that is no URL ends the chain here, as the inner client would.
          return this.settle(res, chain, base, onEnd);
        }
        next.hash = '';
        this.g.record?.({ ...base, endMs: Date.now(), outcome: decision.overridden ? 'overridden' : 'fetched', location: next.href, final: false });
        if (chain.redirects.length >= maxRedirects) throw new TooManyRedirectsError(String(request.url), maxRedirects);
        if (res.statusCode === 303 && method !== 'GET' && method !== 'HEAD') {
          method = 'GET';
          body = undefined;
        }
        const from = new URL(url);
        if (from.host !== next.host) {
          // Credentials stay with the origin they were meant for (as got and fetch do).
          const kept: typeof headers = {};
          for (const [k, v] of Object.entries(headers)) if (!/^(cookie|authorization|host)$/i.test(k)) kept[k] = v;
          headers = kept;
        }
        const updated = { url: next as string | URL, headers: headers as Record<string, string> };
        onRedirect?.(res, updated);
        headers = updated.headers;
        chain.redirects.push(next);
        chain.parent = url;
        chain.url = String(updated.url ?? next);
        continue;
      }
      return this.settle(res, chain, base, onEnd, slot);
    }
  }

  /** got-scraping would otherwise send a generated browser's User-Agent (and client hints), new per request. */
  private get noGenerator(): { useHeaderGenerator?: false } {
    return this.g.userAgent === undefined ? {} : { useHeaderGenerator: false };
  }

  /** `headers` with the gate's User-Agent in place of any other spelling of it. */
  private identify(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
    if (this.g.userAgent === undefined) return headers;
    const out: typeof headers = {};
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'user-agent') out[k] = v;
    out['user-agent'] = this.g.userAgent;
    return out;
  }

  private settle<R extends BaseHttpResponseData>(
    res: R,
    chain: Chain,
    base: Omit<Attempt, 'endMs' | 'outcome' | 'final'>,
    onEnd: (res: R, done: (bytes: number | null) => void) => void,
    slot?: Slot,
  ): R {
    if (chain.redirects.length) (res as { redirectUrls: URL[] }).redirectUrls = chain.redirects;
    let ended = false;
    onEnd(res, (bytes) => {
      if (ended) return;
      ended = true;
      const status = res.statusCode;
      const endMs = Date.now();
      // A 429 or 503 holds the host for its Retry-After (else a default back-off), as every door does.
      const retryAfter = status === 429 || status === 503 ? header(res.headers as Record<string, unknown>, 'retry-after') : undefined;
      const hold = status !== 429 && status !== 503 ? undefined : this.g.backoffUntil ? this.g.backoffUntil(retryAfter, endMs) : backoffUntil(retryAfter, endMs, DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS);
      slot?.release(endMs, hold);
      const failed = status >= 500 || status === 429;
      this.g.record?.({
        ...base,
        endMs,
        bytes,
        outcome: failed ? 'error' : base.decision?.overridden ? 'overridden' : 'fetched',
        ...(failed ? { reason: `http-${status}` } : {}),
        final: true,
      });
    });
    return res;
  }
}
