// The default DocumentTransport: plain HTTP through undici. Redirects are followed here, one hop
// at a time, and each hop is put to the gate before a byte is sent to it, so a redirect into a
// disallowed path (on any origin) is stopped like a direct request would be.
import { request, type Dispatcher } from 'undici';
import type { CrawlGate, DocumentTransport, Hop, TransportFetchOptions, TransportResult } from './types.js';

export interface HttpTransportOptions {
  readonly gate: CrawlGate;
  /** The exact User-Agent header sent (the gate's own). */
  readonly userAgent: string;
  /** Where requests go (e.g. the resolving agent of `--resolve`); undici's global one if unset. */
  readonly dispatcher?: Dispatcher;
  /** Redirect hops followed at most after the first request. Default 5. */
  readonly maxRedirects?: number;
  /** Body bytes kept at most; the rest is not read. Default 10 MiB. */
  readonly maxBytes?: number;
  /** Time for headers, and then between body chunks (ms). Default 30,000. */
  readonly timeoutMs?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class HttpTransport implements DocumentTransport {
  private readonly maxRedirects: number;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpTransportOptions) {
    this.maxRedirects = options.maxRedirects ?? 5;
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async fetch(url: string, options: TransportFetchOptions = {}): Promise<TransportResult> {
    const hops: Hop[] = [];
    const seen = new Set<string>();
    let next: string = url;
    let decision = options.decision;
    for (;;) {
      // Each hop is decided by the policy of its own origin (RFC 9309 §2.2.2 applies to every
      // URL requested; a redirect is a new request).
      const d = decision ?? (await this.options.gate.check(next));
      decision = undefined;
      const startedAt = Date.now();
      if (!d.allowed) {
        hops.push({ url: next, decision: d, startedAt, endedAt: startedAt, status: null, headers: {}, location: null, blocked: true, error: null });
        return { hops, body: new Uint8Array(0), truncated: false };
      }
      seen.add(next);
      const sent = await this.send(next, options.signal);
      const endedAt = Date.now();
      const location =
        sent.status !== null && REDIRECTS.has(sent.status) && sent.headers.location
          ? safeResolve(sent.headers.location, next)
          : null;
      hops.push({ url: next, decision: d, startedAt, endedAt, status: sent.status, headers: sent.headers, location, blocked: false, error: sent.error });
      if (location === null || hops.length > this.maxRedirects || seen.has(location) || !/^https?:/.test(location)) {
        return { hops, body: sent.body, truncated: sent.truncated };
      }
      next = location;
    }
  }

  private async send(
    url: string,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number | null; headers: Record<string, string>; body: Uint8Array; truncated: boolean; error: Hop['error'] }> {
    try {
      const res = await request(url, {
        method: 'GET',
        headers: { 'user-agent': this.options.userAgent, accept: '*/*' },
        dispatcher: this.options.dispatcher,
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        if (size + buf.length > this.maxBytes) {
          chunks.push(buf.subarray(0, this.maxBytes - size));
          size = this.maxBytes;
          truncated = true;
          res.body.destroy();
          break;
        }
        chunks.push(buf);
        size += buf.length;
      }
      return { status: res.statusCode, headers, body: Buffer.concat(chunks, size), truncated, error: null };
    } catch (err) {
      const e = err as { code?: string; name?: string; message?: string };
      return {
        status: null,
        headers: {},
        body: new Uint8Array(0),
        truncated: false,
        error: { code: e.code ?? e.name ?? 'ERR_NETWORK', message: e.message ?? String(err) },
      };
    }
  }

  async close(): Promise<void> {}
}

function safeResolve(location: string, base: string): string | null {
  try {
    const u = new URL(location, base);
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}
