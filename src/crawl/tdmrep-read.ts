// The origin's TDMRep file, read by the crawl under a purpose: once per origin per run, in the slot
// of the URL in hand, audited as rows of kind `tdmrep`. A read that failed is remembered too, for a
// while, as an unreachable robots.txt is: asked again for every URL, a file that hangs cost each
// URL of its origin a full --timeout.
import type { AuditSink } from '../audit/types.js';
import type { Decision } from '../gate/types.js';
import type { Pacer } from '../politeness/pacer.js';
import type { TakenItem, WaitReason } from '../politeness/types.js';
import { retryAfterMs } from '../politeness/retry-after.js';
import { failureRetryMs } from '../gate/policy-record.js';
import type { Lease } from '../stores/types.js';
import { parseTdmRep } from '../usage/index.js';
import { hopRow, type AttemptLog } from './attempt-log.js';
import type { CrawlGate, DocumentTransport, TransportResult } from './types.js';
import type { TdmRepCopy } from './usage-check.js';

/** Redirect hops followed after the first request (as robots.txt's, RFC 9309 §2.3.1.2). */
const MAX_REDIRECTS = 5;

const hostOf = (url: string) => new URL(url).host;

/** A failed read is asked again after this (ms), doubled at each failure in a row, or after its
 *  Retry-After when longer: the gate's schedule for an unreachable robots.txt (retryMs). */
const TDMREP_RETRY_MS = 60_000;
/** The longest a failed read is kept before it is asked again (ms): robots.txt's maxAgeMs. */
const TDMREP_RETRY_MAX_MS = 86_400_000;

export interface TdmRepReaderDeps {
  readonly gate: CrawlGate;
  readonly pacer: Pacer;
  readonly transport: DocumentTransport;
  readonly audit: AuditSink;
  readonly log: AttemptLog;
  readonly signal: AbortSignal | undefined;
}

export class TdmRepReader {
  /** Files read this run, per origin. */
  private readonly copies = new Map<string, TdmRepCopy>();
  /** Reads that failed, per origin: the copy (unreachable: it reserves) stands until `retryAt`
   *  (ms since epoch); `failures` in a row. */
  private readonly failed = new Map<string, { copy: TdmRepCopy; retryAt: number; failures: number }>();

  constructor(private readonly d: TdmRepReaderDeps) {}

  /**
   * The origin's TDMRep file (W3C TDM Reservation Protocol), read once per origin per run through
   * the transport (so gated, and audited as a row of kind `tdmrep`) in the slot of the URL in hand.
   * A read that failed (5xx, 429, network error, timeout) stands for the origin's next URLs, as
   * unreachable, until it is due again (TDMREP_RETRY_MS, doubling; at least its Retry-After).
   * The document request after it keeps the host's interval from it, as after a robots.txt request.
   * @param interval the interval (ms) to keep before this request, as for the document request.
   * @param lease the URL's lease, when the frontier's leases are the limiter's: the request (and
   *   a robots.txt request its check makes) goes under it.
   * @returns the copy, and when its request ended (epoch ms; undefined: none was sent, the copy
   *   was known or every hop was blocked); undefined when the signal aborted the wait for the slot
   *   (nothing was sent).
   */
  async read(t: TakenItem, decision: Decision, interval: { ms: number; reason: WaitReason }, lease?: Lease): Promise<{ copy: TdmRepCopy; endedAt: number | undefined } | undefined> {
    const origin = decision.origin;
    const known = this.copies.get(origin);
    if (known !== undefined) return { copy: known, endedAt: undefined };
    const failed = this.failed.get(origin);
    if (failed !== undefined && Date.now() < failed.retryAt) return { copy: failed.copy, endedAt: undefined };
    const url = `${origin}/.well-known/tdmrep.json`;
    // Each hop a request of its own: decided, then in its host's slot, so a redirect (the file
    // moved elsewhere, as W3C's TDMRep allows) keeps that host's interval, and the document
    // request after it keeps the interval from the last one.
    const hops: TransportResult['hops'][number][] = [];
    let result: TransportResult | undefined;
    let next: string | null = url;
    for (let hop = 0; next !== null && hop <= MAX_REDIRECTS; hop++) {
      const at: string = next;
      // Decided before the slot is taken: a check that refetched robots.txt then would wait for
      // the very slot this request holds.
      // The URL's lease covers its own host's hops; another host's slot is taken anew.
      const under = hostOf(at) === t.item.host ? lease : undefined;
      const own = await this.d.gate.check(at, under ? { lease: under } : undefined).catch(() => undefined);
      let slot;
      try {
        slot = await this.d.pacer.take(hostOf(at), interval, this.d.signal, at, under);
      } catch {
        if (hop === 0) return undefined;
        break;
      }
      try {
        this.d.audit.flush?.(t.item.host);
        result = await this.d.transport.fetch(at, { signal: this.d.signal, slotHeld: true, ...(own ? { decision: own } : {}) });
      } finally {
        // +1: Date.now() rounds down; the interval never counts from before the end.
        void slot.release(Date.now() + 1);
      }
      hops.push(...result.hops);
      const end = result.hops[result.hops.length - 1]!;
      next = result.redirectTo !== undefined && result.redirectTo !== null && end.status !== null && end.status >= 300 && end.status < 400 ? result.redirectTo : null;
    }
    result = { ...result!, hops };
    const last = result.hops[result.hops.length - 1]!;
    let file = null;
    if (last.status !== null && last.status >= 200 && last.status < 300 && !last.blocked) {
      file = parseTdmRep(new TextDecoder().decode(result.body));
    }
    // A file that could not be read says nothing yet: it reserves (fail closed, as an unreachable
    // robots.txt does), and is asked again once due, not for each URL of the origin meanwhile.
    const unreachable = last.error !== null ? last.error.code : last.status !== null && (last.status >= 500 || last.status === 429) ? last.status : undefined;
    const copy: TdmRepCopy = { url: last.url, file, ...(unreachable !== undefined ? { unreachable } : {}) };
    if (unreachable === undefined) {
      this.copies.set(origin, copy);
      this.failed.delete(origin);
    } else if (!this.d.signal?.aborted) {
      // Cut by the run's own stop: not the server's failure (the run ends anyway).
      const failures = (failed?.failures ?? 0) + 1;
      const wait = failureRetryMs(failures, TDMREP_RETRY_MS, TDMREP_RETRY_MAX_MS, retryAfterMs(last.headers['retry-after'], last.endedAt));
      this.failed.set(origin, { copy, retryAt: last.endedAt + wait, failures });
    }
    for (let i = 0; i < result.hops.length; i++) {
      const hop = result.hops[i]!;
      const row = hopRow(hop, { kind: 'tdmrep', parentUrl: i === 0 ? t.item.url : result.hops[i - 1]!.url }, false, t.item.host, t, {
        retry: false,
        isLast: i === result.hops.length - 1,
        saved: undefined,
        bytes: i === result.hops.length - 1 ? result.body.byteLength : null,
        truncated: false,
        saveError: undefined,
      }, !!this.d.signal?.aborted);
      // Not the URL's own row: it neither settles the URL nor counts as one.
      this.d.log.write({ ...row, final: false, settles: false, ...(file && i === result.hops.length - 1 && file.problems.length ? { error: file.problems.join('; ') } : {}) });
    }
    return { copy, endedAt: result.hops.some((h) => !h.blocked) ? last.endedAt : undefined };
  }
}
