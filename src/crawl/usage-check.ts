// Usage beside access, in the crawl: each fetched document gets a usage verdict from robots.txt's
// usage lines (on the decision), its response headers, its HTML meta and, under a purpose, the
// origin's TDMRep file; with `purpose`, a document whose verdict reserves it is not kept.
import type { Decision } from '../gate/types.js';
import {
  isReserved,
  signalFromTdmRep,
  signalsFromHeaders,
  signalsFromHtml,
  tdmRepUnreachable,
  usageVerdict,
  type Purpose,
  type TdmRepFile,
  type UsageSignal,
  type UsageVerdict,
} from '../usage/index.js';
import type { Hop } from './types.js';

/** The TDMRep file of an origin as the crawl read it (null rules: none was served). */
export interface TdmRepCopy {
  readonly url: string;
  readonly file: TdmRepFile | null;
  /** The read failed (5xx, 429, network error: its status or code): the file may exist. */
  readonly unreachable?: number | string;
}

const HTML = /^\s*(text\/html|application\/xhtml\+xml)\b/i;
const decoder = new TextDecoder('utf-8', { fatal: false });

export interface UsageCheckOptions {
  /** With a purpose, a reserved document is not kept; without one, verdicts are recorded only. */
  readonly purpose?: Purpose;
  /** The crawler's product tokens, for scoped X-Robots-Tag and crawler-named meta tags. */
  readonly productTokens: readonly string[];
}

export class UsageCheck {
  constructor(private readonly o: UsageCheckOptions) {}

  get purpose(): Purpose | undefined {
    return this.o.purpose;
  }

  /** The TDMRep file's rule for `url`, as a verdict, when it reserves the purpose (the document
   *  is then not fetched); null otherwise. */
  reservedByTdmRep(url: string, tdm: TdmRepCopy | null): UsageVerdict | null {
    if (this.o.purpose === undefined || tdm == null) return null;
    const signal = tdm.unreachable !== undefined ? tdmRepUnreachable(tdm.url, tdm.unreachable) : tdm.file ? signalFromTdmRep(tdm.file, pathOf(url), tdm.url) : null;
    if (signal === null) return null;
    const verdict = usageVerdict([signal]);
    return isReserved(verdict, this.o.purpose) ? verdict : null;
  }

  /** The signal that reserved the purpose, as the row's rule columns: a robots.txt line with its
   *  text (`Content-Usage: train-ai=n`), or a header or meta (no line). */
  decidingLine(usage: UsageVerdict | null | undefined): { ruleLine: number | null; rulePattern: string | null } {
    const s = this.o.purpose !== undefined ? usage?.purposes[this.o.purpose].signals[0] : undefined;
    if (s === undefined) return { ruleLine: null, rulePattern: null };
    const name = { 'content-usage': 'Content-Usage', 'content-signal': 'Content-Signal' }[s.kind as string] ?? s.kind;
    return { ruleLine: s.line ?? null, rulePattern: `${name}: ${s.value}` };
  }

  /** The verdict of a document that answered (`hop` is the last hop, `decision` its decision),
   *  and whether it may be kept under the purpose. */
  document(decision: Decision, hop: Hop, body: Uint8Array, tdm: TdmRepCopy | null): { usage: UsageVerdict; keep: boolean } {
    const contentType = hop.headers['content-type'];
    const ctx = { productTokens: [decision.productToken, ...this.o.productTokens], contentType };
    const signals: UsageSignal[] = [...(decision.usage?.signals ?? []), ...signalsFromHeaders(hop.headers, ctx)];
    if (HTML.test(contentType ?? '') && hasMeta(body)) signals.push(...signalsFromHtml(decoder.decode(body), ctx));
    if (tdm?.file) {
      const s = signalFromTdmRep(tdm.file, pathOf(hop.url), tdm.url);
      if (s !== null) signals.push(s);
    }
    const usage = usageVerdict(signals);
    return { usage, keep: this.o.purpose === undefined || !isReserved(usage, this.o.purpose) };
  }
}

/** HTML's usage signals are all <meta> tags: a page without one is not parsed for them (a parse
 *  per page was a twentieth of a fast crawl's time). The octets are searched as they are, for
 *  `<meta` in any case followed by a space, `/` or `>`: the tag's ASCII is the same in any
 *  ASCII-compatible encoding, and no copy of the body is made (a latin1 string of each body was
 *  the crawl's largest allocation, and as large as the body). */
function hasMeta(body: Uint8Array): boolean {
  const end = body.length - 5;
  for (let i = body.indexOf(0x3c); i !== -1 && i < end; i = body.indexOf(0x3c, i + 1)) {
    if ((body[i + 1]! | 0x20) !== 0x6d || (body[i + 2]! | 0x20) !== 0x65 || (body[i + 3]! | 0x20) !== 0x74 || (body[i + 4]! | 0x20) !== 0x61) continue;
    const c = body[i + 5]!;
    if (c === 0x20 || c === 0x2f || c === 0x3e || (c >= 0x09 && c <= 0x0d)) return true;
  }
  return false;
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return '/';
  }
}
