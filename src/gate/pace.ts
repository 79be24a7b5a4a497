// Pacing at the dispatch level: a request waits for its host's slot (Pacer) before it is handed
// to the dispatcher below, and gives the slot back when its response ended (or failed). One
// implementation for the three ways the gate sends: gate.fetch, the interceptor, robots.txt.
//
// The handler is told the request started (onRequestStart) before the wait, with a controller
// of ours: fetch() and undici.request() abort through that controller (their signal), so an
// abort during the wait frees the slot and nothing is sent.
import type { Dispatcher } from 'undici';
import { kRobotsClock, type RobotsFetchClock } from '../fetcher/robots-fetcher.js';
import type { Interval } from '../politeness/interval.js';
import { releasing, type Cancellation, type Pacer, type Slot } from '../politeness/pacer.js';
import type { Lease } from '../stores/types.js';
import { retryAfterMs } from '../politeness/retry-after.js';

/** Marks a request that holds its host's slot already: a pacing step below (a gate's interceptor
 *  in the dispatcher gate.fetch sends through) must not wait for the slot a second time. */
export const kPaced: unique symbol = Symbol.for('robots-gate.paced') as never;

/** Carries the lease a request is sent under (CheckOptions.lease) down to the pacing step. */
const kWithin: unique symbol = Symbol('robots-gate.within') as never;

/** An interceptor that marks each request as sent under `lease` (on that lease's host only). */
export function withLease(lease: Lease): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => dispatch({ ...opts, [kWithin]: lease } as Dispatcher.DispatchOptions, handler);
}

/** The lease a request is sent under, if any. */
export function leaseOf(opts: Dispatcher.DispatchOptions): Lease | undefined {
  return (opts as unknown as Record<symbol, Lease | undefined>)[kWithin];
}

/** Send `opts` with `handler`, which holds a host's slot: a dispatch that throws gives it back. */
export function dispatchHolding(dispatch: Dispatch, opts: Dispatcher.DispatchOptions, handler: { release(): void }): boolean {
  try {
    return dispatch(opts, handler as unknown as Dispatcher.DispatchHandler);
  } catch (err) {
    handler.release();
    throw err;
  }
}

/** Did a pacing step above send this request? */
export function isPaced(opts: Dispatcher.DispatchOptions): boolean {
  return (opts as unknown as Record<symbol, unknown>)[kPaced] === true;
}

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;
type Dispatch = Dispatcher.Dispatch;

/** What pacing needs from the gate for one request. */
export interface PaceTerms {
  readonly pacer: Pacer;
  /** The politeness key (`URL.host`). */
  readonly host: string;
  /** The request's origin (a request's URL is this and its path). */
  readonly origin: string;
  /** The caller's lease on this host: the request goes under it (Pacer.take's `within`). */
  readonly within?: Lease | undefined;
  /** Aborted by gate.close(), its reason a GateClosedError: a request still waiting for its slot
   *  then gives up its wait with that error, as an abort of its own would. */
  readonly closing?: Cancellation;
  /** The host's interval now (drawn once: the jitter of this gap). */
  interval(): Interval;
  /** Back-off after a 429/503 ending at `endedAt` (ms since epoch): when the host opens again. */
  backoff(retryAfter: string | undefined, endedAt: number): number;
}

/** An abort for one wait or one request, shaped like an AbortSignal as far as undici and Pacer.take
 *  read one: an AbortController costs more than the rest of a warm request's pacing. */
export class WaitCancel implements Cancellation {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] | undefined;
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const ls = this.#listeners;
    this.#listeners = undefined;
    if (ls) for (const l of ls) l();
  }
  addEventListener(_type: 'abort', listener: () => void): void {
    (this.#listeners ??= []).push(listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    const ls = this.#listeners;
    if (!ls) return;
    const i = ls.indexOf(listener);
    if (i >= 0) ls.splice(i, 1);
  }
}

/** Stands in for the dispatcher's controller until the request is dispatched, then forwards. */
class WaitController implements Controller {
  real: Controller | undefined;
  #aborted = false;
  #reason: Error | null = null;
  readonly #onAbort: (reason: Error) => void;
  constructor(onAbort: (reason: Error) => void) {
    this.#onAbort = onAbort;
  }
  get aborted(): boolean {
    return this.real ? this.real.aborted : this.#aborted;
  }
  get paused(): boolean {
    return this.real ? this.real.paused : false;
  }
  get reason(): Error | null {
    return this.real ? this.real.reason : this.#reason;
  }
  abort(reason: Error): void {
    if (this.real) return this.real.abort(reason);
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#onAbort(reason);
  }
  pause(): void {
    this.real?.pause();
  }
  resume(): void {
    this.real?.resume();
  }
}

/** Forwards everything; releases the slot once, when the response ended or failed. */
class ReleasingHandler implements Handler {
  #status = 0;
  #retryAfter: string | undefined;
  #released = false;
  constructor(
    readonly inner: Handler,
    /** undefined when dispatched at once: the handler sees the dispatcher's controller. */
    readonly ctl: WaitController | undefined,
    readonly slot: Slot,
    readonly terms: PaceTerms,
    /** A robots.txt fetch's clock: told when its response ended. */
    readonly clock?: RobotsFetchClock,
  ) {}
  release(): void {
    if (this.#released) return;
    this.#released = true;
    // Date.now() rounds down: the response may have ended up to 1 ms later than it says, and the
    // interval must never be measured from before the real end.
    const endedAt = Date.now() + 1;
    this.clock?.ended?.(endedAt);
    const backoff = this.#status === 429 || this.#status === 503 ? this.terms.backoff(this.#retryAfter, endedAt) : undefined;
    releasing(this.slot.release(endedAt, backoff));
  }
  onRequestStart(controller: Controller, context: unknown): void {
    const ctl = this.ctl;
    if (ctl === undefined) return this.inner.onRequestStart?.(controller, context);
    const aborted = ctl.aborted;
    const reason = ctl.reason;
    ctl.real = controller;
    if (aborted) controller.abort(reason ?? new Error('aborted'));
  }
  onRequestUpgrade(controller: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>, socket: import('node:stream').Duplex): void {
    this.release();
    this.inner.onRequestUpgrade?.(this.ctl ?? controller, statusCode, headers, socket);
  }
  onResponseStart(controller: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    if (statusCode >= 200) {
      this.#status = statusCode;
      const ra = headers['retry-after'];
      this.#retryAfter = Array.isArray(ra) ? ra[0] : ra;
    }
    this.inner.onResponseStart?.(this.ctl ?? controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Controller, chunk: Buffer): void {
    this.inner.onResponseData?.(this.ctl ?? controller, chunk);
  }
  onResponseEnd(controller: Controller, trailers: Record<string, string | string[] | undefined>): void {
    this.release();
    this.inner.onResponseEnd?.(this.ctl ?? controller, trailers);
  }
  onResponseError(controller: Controller, err: Error): void {
    this.release();
    this.inner.onResponseError?.(this.ctl ?? controller, err);
  }
}

/**
 * Dispatch `opts` once `before` (the check, for the interceptor) and the host's slot allow it.
 * Errors (a RobotsBlockedError from `before`, an abort) go to `handler.onResponseError`.
 * @param terms undefined: send unpaced (exempt, or politeness off); `before` still runs.
 */
export function dispatchPaced(
  dispatch: Dispatch,
  opts: Dispatcher.DispatchOptions,
  handler: Handler,
  terms: PaceTerms | undefined,
  before?: (signal: Cancellation) => Promise<Dispatcher.DispatchOptions>,
): boolean {
  if (terms === undefined && before === undefined) return dispatch(opts, handler);
  // A robots.txt fetch's time limit is for the server: it stands still while we wait our turn.
  const clock = (opts as unknown as Record<symbol, RobotsFetchClock | undefined>)[kRobotsClock];
  if (before === undefined && terms!.within === undefined) {
    // The common case for a warm host: its slot is open now; no wait, no stand-in controller.
    const slot = terms!.pacer.takeNow(terms!.host, terms!.interval());
    if (slot !== undefined) {
      return dispatchHolding(dispatch, { ...opts, [kPaced]: true } as Dispatcher.DispatchOptions, new ReleasingHandler(handler, undefined, slot, terms!, clock));
    }
  }
  const wait = new WaitCancel();
  let failed = false;
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    handler.onResponseError?.(ctl, err as Error);
  };
  const ctl = new WaitController((reason) => {
    wait.abort(reason);
    // Report after the handler's own onRequestStart has returned (it may abort from inside it).
    queueMicrotask(() => fail(reason));
  });
  handler.onRequestStart?.(ctl, {});
  const onClose = closeWait(terms?.closing, (reason) => ctl.abort(reason));
  void (async () => {
    let sendOpts = opts;
    if (before) sendOpts = await before(wait);
    if (ctl.aborted) return;
    if (terms === undefined) {
      // No slot: the handler sees the real controller from here on.
      const h: Handler = { ...forward(handler, ctl) };
      dispatch(sendOpts, h);
      return;
    }
    clock?.pause();
    let slot: Slot;
    try {
      slot = await terms.pacer.take(terms.host, terms.interval(), wait, terms.origin + opts.path, terms.within);
    } finally {
      clock?.resume();
      if (onClose) terms.closing!.removeEventListener('abort', onClose);
    }
    if (ctl.aborted) {
      await slot.release(Date.now());
      return;
    }
    dispatchHolding(dispatch, { ...sendOpts, [kPaced]: true } as Dispatcher.DispatchOptions, new ReleasingHandler(handler, ctl, slot, terms, clock));
  })()
    .catch((err) => {
      if (!ctl.aborted) fail(err);
    })
    .finally(() => {
      if (onClose) terms!.closing!.removeEventListener('abort', onClose);
    });
  return true;
}

/**
 * Abort a wait with `closing`'s reason once it is aborted (already included): `abort` is the
 * request's own abort, so gate.close() ends the wait the way the caller's signal would. Returns the
 * listener to remove when the wait is over (undefined when there is none to remove).
 */
export function closeWait(closing: Cancellation | undefined, abort: (reason: Error) => void): (() => void) | undefined {
  if (closing === undefined) return undefined;
  if (closing.aborted) {
    abort(closing.reason as Error);
    return undefined;
  }
  const onClose = () => abort(closing.reason as Error);
  closing.addEventListener('abort', onClose);
  return onClose;
}

/** A handler that hands the wait controller's place to the real one and forwards the rest. */
function forward(inner: Handler, ctl: WaitController): Handler {
  return {
    onRequestStart(controller) {
      const aborted = ctl.aborted;
      const reason = ctl.reason;
      ctl.real = controller;
      if (aborted) controller.abort(reason ?? new Error('aborted'));
    },
    onRequestUpgrade: (_c, s, h, socket) => inner.onRequestUpgrade?.(ctl, s, h, socket),
    onResponseStart: (_c, s, h, m) => inner.onResponseStart?.(ctl, s, h, m),
    onResponseData: (_c, chunk) => inner.onResponseData?.(ctl, chunk),
    onResponseEnd: (_c, t) => inner.onResponseEnd?.(ctl, t),
    onResponseError: (_c, e) => inner.onResponseError?.(ctl, e),
  };
}

/** Back-off end (ms since epoch) for a 429/503 ending at `endedAt`: Retry-After read strictly
 *  (RFC 9110 §10.2.3), else `defaultMs`; at most `maxMs`. */
export function backoffUntil(retryAfter: string | undefined, endedAt: number, defaultMs: number, maxMs: number): number {
  return endedAt + Math.min(retryAfterMs(retryAfter, endedAt) ?? defaultMs, maxMs);
}
