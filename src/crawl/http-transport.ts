// The default DocumentTransport: plain HTTP through the gate's own fetch, which follows redirects
// hop by hop and puts each hop to the policy of its own origin before a byte is sent to it. This
// transport only watches the hops (for the audit), bounds the time and size, and reads the body.
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
  /** Follow redirects here (default true). The crawl says false: it schedules each target as a
   *  request of its own, so a hop to another host keeps that host's interval too; the result's
   *  `redirectTo` names the target. */
  readonly followRedirects?: boolean;
}

export class HttpTransport implements DocumentTransport {
  private readonly maxRedirects: number;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly follow: boolean;

  constructor(private readonly options: HttpTransportOptions) {
    this.maxRedirects = options.maxRedirects ?? 5;
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.follow = options.followRedirects ?? true;
  }

  async fetch(url: string, options: TransportFetchOptions = {}): Promise<TransportResult> {
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
        location: h.location ?? null,
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
        redirect: this.follow ? 'follow' : 'manual',
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
    const { body, truncated, error } = await this.readBody(res, timeout);
    const last = hops[hops.length - 1]!;
    hops[hops.length - 1] = { ...last, endedAt: Date.now(), headers, error };
    return { hops, body, truncated, redirectTo: this.follow ? null : last.location };
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

  async close(): Promise<void> {}
}

function isRedirectLimit(err: unknown): boolean {
  return (err as { code?: string }).code === 'ERR_TOO_MANY_REDIRECTS';
}

function errorOf(err: unknown, timeout: AbortSignal): { code: string; message: string } {
  if (timeout.aborted) return { code: 'ETIMEDOUT', message: 'no complete response within the time limit' };
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code ?? e.name ?? 'ERR_NETWORK';
  const message = e.cause?.message ?? e.message ?? String(err);
  return { code, message };
}
