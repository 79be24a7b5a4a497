// The crawl layer's shapes: how one document is fetched through the gate (DocumentTransport, with
// an HTTP implementation here and a browser one elsewhere), and the gate as the crawl sees it.
// Times are milliseconds since the epoch unless a name says otherwise.
import type { Decision, PolicyChange } from '../gate/types.js';
import type { Lease, PolicyRecord, RateLimiter } from '../stores/types.js';

/** One request of a document fetch: the URL asked for, or a redirect hop after it. */
export interface Hop {
  readonly url: string;
  /** The gate's decision for this hop, taken just before it was sent (or refused). */
  readonly decision: Decision;
  /** ms since epoch */
  readonly startedAt: number;
  /** ms since epoch: the response ended (body read), or the hop was refused or failed. */
  readonly endedAt: number;
  /** HTTP status; null when nothing was sent (blocked) or no response came (network error). */
  readonly status: number | null;
  /** Response headers (lower-case names); empty when there was no response. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Location of a 3xx, resolved against the hop's URL. */
  readonly location: string | null;
  /** Set when the hop was refused by the gate (nothing sent). */
  readonly blocked: boolean;
  /** Network or protocol error (code and message): no response came (status null), or its body
   *  was cut short (a timeout or a reset mid-body; status set, and the partial body is not saved). */
  readonly error: { readonly code: string; readonly message: string } | null;
}

/** The outcome of fetching one URL, redirects followed hop by hop through the gate. */
export interface TransportResult {
  /** Every hop in order; the last one is where the fetch ended (a document, a refusal, an error,
   *  or a 3xx when the redirect limit was reached). */
  readonly hops: readonly Hop[];
  /** Body of the last hop when it answered (capped at `maxBytes`); empty otherwise. */
  readonly body: Uint8Array;
  /** The body was cut at `maxBytes`. */
  readonly truncated: boolean;
  /** Set when the fetch stopped at a 3xx the transport was told not to follow: the absolute
   *  target, for the caller to schedule as a request of its own (under its host's politeness). */
  readonly redirectTo?: string | null;
  /** When the last request to the document's host made while handling it ended (epoch ms), when
   *  that is after the last hop (a rendered page's own subresources): the host's interval counts
   *  from then. */
  readonly hostEndedAt?: number;
}

export interface TransportFetchOptions {
  /** The gate's decision for the first URL, if the caller already has it (saves a lookup). */
  readonly decision?: Decision;
  readonly signal?: AbortSignal;
  /** The caller holds the host's politeness slot for this fetch (the crawl takes it): the
   *  transport sends without waiting for it again, and follows no redirect it would have to space. */
  readonly slotHeld?: boolean;
  /** No further request to this host is planned: its connection is closed after this response
   *  instead of kept idle (a broad crawl would hold one idle socket, and its pool, per host). */
  readonly lastForHost?: boolean;
  /** With `slotHeld`: gives that slot back, its response ended at `endedAt` (ms since epoch). A
   *  transport that sends more after the document (a rendered page's frames, popups, the page's
   *  own navigations) calls it once the document's response has ended, before sending more:
   *  those navigations take their hosts' slots on the gate's limiter themselves, the document's
   *  host included, which would otherwise wait for this one. Not called: the caller releases. */
  readonly releaseSlot?: (endedAt: number) => Promise<void>;
  /** The caller's lease on the document's host when it is the gate limiter's own (a fleet
   *  frontier's): what the transport sends to that host later goes under it (see `releaseSlot`). */
  readonly lease?: Lease;
}

/** Fetches one document through the gate. Implementations: HTTP (default), browser. */
export interface DocumentTransport {
  /** Never throws for HTTP or network trouble: it is reported in the hops. Throws only on a
   *  programming error (e.g. a URL that is not http(s)). */
  fetch(url: string, options?: TransportFetchOptions): Promise<TransportResult>;
  close(): Promise<void>;
}

/** The gate as the crawl uses it; `RobotsGate` satisfies it. */
export interface CrawlGate {
  /** The User-Agent header sent (recorded in the audit's run row); `RobotsGate` has it. */
  readonly userAgent?: string;
  /** The gate's limiter (RobotsGate has one): the crawl takes each host's slot from it. */
  readonly limiter?: RateLimiter;
  /** `options.lease`: the host's lease the crawl holds on `limiter` (RobotsGate's CheckOptions). */
  check(url: string, options?: { lease?: Lease }): Promise<Decision>;
  isUnderOverride(host: string): boolean | Promise<boolean>;
  /** 'policy': a robots.txt was fetched (its text goes into the audit).
   *  'policy-change': its sha256 changed from the copy seen before. */
  on(event: 'policy', listener: (record: PolicyRecord) => void): unknown;
  on(event: 'policy-change', listener: (change: PolicyChange) => void): unknown;
  off?(event: string, listener: (...args: never[]) => void): unknown;
}
