// The usage layer's shapes: what a site says may be DONE with what is fetched, kept apart from
// whether it may be fetched (RFC 9309 decides that alone). Sources: robots.txt Content-Usage
// (IETF aipref attach + vocab drafts) and Content-Signal (Cloudflare's convention), the
// Content-Usage and X-Robots-Tag response headers, HTML `<meta name="robots">`, and TDMRep
// (W3C TDM Reservation Protocol: /.well-known/tdmrep.json, tdm-* headers, tdm-* meta).

/** The purposes a crawl may name (`--purpose`). */
export type Purpose = 'search' | 'ai-input' | 'ai-train';
export const PURPOSES: readonly Purpose[] = Object.freeze(['search', 'ai-input', 'ai-train']);

/** One purpose's verdict: `reserved` when any signal reserves it, else `allowed` when one allows it. */
export type UsageValue = 'allowed' | 'reserved' | 'unknown';

export type SignalKind =
  | 'content-usage'
  | 'content-signal'
  | 'x-robots-tag'
  | 'meta-robots'
  | 'tdmrep-file'
  | 'tdmrep-header'
  | 'tdmrep-meta';

/** One signal as read, with what it says of each purpose it speaks about. */
export interface UsageSignal {
  readonly kind: SignalKind;
  /** Where it was read: `robots.txt`, `header`, `html`, or `tdmrep.json`. */
  readonly source: 'robots.txt' | 'header' | 'html' | 'tdmrep.json';
  /** The value as written (a header value, a robots.txt line's preferences, a meta content). */
  readonly value: string;
  /** robots.txt line number, for `source: 'robots.txt'`. */
  readonly line?: number;
  /** The URL of the file it came from (robots.txt or tdmrep.json), when it came from one. */
  readonly url?: string;
  /** What it says per purpose; a purpose it does not mention is absent. */
  readonly purposes: Readonly<Partial<Record<Purpose, 'allowed' | 'reserved'>>>;
}

/** The usage verdict of one document (or, before fetching, of one URL's robots.txt lines). */
export interface UsageVerdict {
  readonly purposes: Readonly<Record<Purpose, { readonly verdict: UsageValue; readonly signals: readonly UsageSignal[] }>>;
  /** How signals combine: any reservation wins over any allowance (aipref vocab draft: "n" wins). */
  readonly rule: 'any-reserved-wins';
  /** Every signal read, including those that speak of no purpose (e.g. `noarchive`). */
  readonly signals: readonly UsageSignal[];
}
