// Pacing for gate.fetch without Dispatcher.compose. undici's fetch() sends with its own handler
// interface (onConnect, onHeaders with raw header Buffers, ...); a composed interceptor speaks the
// newer one, so undici converts every response's headers to strings and back to Buffers around
// it, which cost a warm request more than everything else the gate does (a third of its CPU in
// the profile). Here the handler fetch gives is forwarded as it is, released like the other.
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { releasing, type Slot } from '../politeness/pacer.js';
import { closeWait, dispatchHolding, dispatchPaced, isPaced, kPaced, WaitCancel, type PaceTerms } from './pace.js';

type Abort = (reason?: Error) => void;

/** undici's handler interface as fetch() and request() use it. */
interface RawHandler {
  onConnect?(abort: Abort, context?: unknown): void;
  onHeaders?(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText?: string): boolean;
  onData?(chunk: Buffer): boolean;
  onComplete?(trailers: Buffer[] | null): void;
  onError?(err: Error): void;
  onUpgrade?(statusCode: number, rawHeaders: Buffer[], socket: Duplex): void;
  onResponseStarted?(): void;
  onBodySent?(chunk: unknown): void;
  onRequestSent?(): void;
}

/** Where an early onConnect's abort goes: to the real one once the request is dispatched. */
interface EarlyAbort {
  real: Abort | undefined;
}

/** Forwards a raw handler's calls; releases the slot once, when the response ended or failed. */
class RawReleasingHandler implements RawHandler {
  #status = 0;
  #retryAfter: string | undefined;
  #released = false;
  constructor(
    readonly inner: RawHandler,
    readonly slot: Slot,
    readonly terms: PaceTerms,
    /** Set when the inner handler was told of the request before its wait (it holds our abort). */
    readonly early: EarlyAbort | undefined,
  ) {}
  release(): void {
    if (this.#released) return;
    this.#released = true;
    // Date.now() rounds down: the interval must never be measured from before the real end.
    const endedAt = Date.now() + 1;
    const backoff = this.#status === 429 || this.#status === 503 ? this.terms.backoff(this.#retryAfter, endedAt) : undefined;
    releasing(this.slot.release(endedAt, backoff));
  }
  onConnect(abort: Abort, context?: unknown): void {
    if (this.early === undefined) return this.inner.onConnect?.(abort, context);
    this.early.real = abort;
  }
  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText?: string): boolean {
    if (statusCode >= 200) {
      this.#status = statusCode;
      if (statusCode === 429 || statusCode === 503) this.#retryAfter = rawHeader(rawHeaders, 'retry-after');
    }
    return this.inner.onHeaders?.(statusCode, rawHeaders, resume, statusText) ?? true;
  }
  onData(chunk: Buffer): boolean {
    return this.inner.onData?.(chunk) ?? true;
  }
  onComplete(trailers: Buffer[] | null): void {
    this.release();
    this.inner.onComplete?.(trailers);
  }
  onError(err: Error): void {
    this.release();
    this.inner.onError?.(err);
  }
  onUpgrade(statusCode: number, rawHeaders: Buffer[], socket: Duplex): void {
    this.release();
    this.inner.onUpgrade?.(statusCode, rawHeaders, socket);
  }
  onResponseStarted(): void {
    this.inner.onResponseStarted?.();
  }
  onBodySent(chunk: unknown): void {
    this.inner.onBodySent?.(chunk);
  }
  onRequestSent(): void {
    this.inner.onRequestSent?.();
  }
}

/** The first value of header `name` (lower case) in undici's raw [name, value, ...] list. */
function rawHeader(raw: Buffer[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toString('latin1').toLowerCase() === name) return raw[i + 1]!.toString('latin1');
  }
  return undefined;
}

/** A handler of the newer interface (an interceptor composed above us, undici.request's own). */
function isNewHandler(h: object): h is Dispatcher.DispatchHandler {
  return typeof (h as Dispatcher.DispatchHandler).onRequestStart === 'function';
}

/**
 * Dispatch `opts` once its host's slot allows, whichever handler interface `handler` speaks.
 * @param terms undefined: send at once (exempt).
 */
function dispatchDirect(dispatch: Dispatcher.Dispatch, opts: Dispatcher.DispatchOptions, handler: object, terms: PaceTerms | undefined): boolean {
  if (terms === undefined) return dispatch(opts, handler as Dispatcher.DispatchHandler);
  if (isNewHandler(handler)) return dispatchPaced(dispatch, opts, handler, terms);
  const raw = handler as RawHandler;
  // Marked in place, not copied: fetch() builds a fresh options object for every dispatch, and only
  // gate.fetch's fetch dispatches here. A copy cost a warm request twice: the spread itself, and
  // undici's Request constructor reading a second shape of options (1.6 % of a warm gate.fetch's
  // CPU samples between them).
  (opts as unknown as Record<symbol, boolean>)[kPaced] = true;
  const paced = opts;
  const now = terms.within === undefined ? terms.pacer.takeNow(terms.host, terms.interval()) : undefined;
  if (now !== undefined) {
    return dispatchHolding(dispatch, paced, new RawReleasingHandler(raw, now, terms, undefined));
  }
  // The request starts now for the handler (fetch's abort reaches the wait), and goes out when
  // the slot is ours.
  const wait = new WaitCancel();
  const early: EarlyAbort = { real: undefined };
  let failed = false;
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    raw.onError?.(err as Error);
  };
  const abort: Abort = (reason) => {
    if (early.real) return early.real(reason);
    if (wait.aborted) return;
    const why = reason ?? new Error('aborted');
    wait.abort(why);
    // Report after the handler's own onConnect has returned (it may abort from inside it).
    queueMicrotask(() => fail(why));
  };
  raw.onConnect?.(abort, {});
  const onClose = closeWait(terms.closing, abort);
  void (async () => {
    let slot: Slot;
    try {
      slot = await terms.pacer.take(terms.host, terms.interval(), wait, terms.origin + opts.path, terms.within);
    } finally {
      // From here on the request is sent or dropped: closing the gate no longer reaches it.
      if (onClose) terms.closing!.removeEventListener('abort', onClose);
    }
    if (wait.aborted) {
      await slot.release(Date.now());
      return;
    }
    dispatchHolding(dispatch, paced, new RawReleasingHandler(raw, slot, terms, early));
  })().catch((err) => {
    if (!wait.aborted) fail(err);
  });
  return true;
}

/** A dispatch function that paces every request to `inner` (gate.fetch's), as the interceptor
 *  does but without compose. `terms` gives a request's pacing (undefined: exempt). */
export function pacedDispatch(
  inner: Dispatcher,
  terms: (opts: Dispatcher.DispatchOptions) => PaceTerms | undefined,
): Dispatcher.Dispatch {
  const dispatch = inner.dispatch.bind(inner);
  return (opts, handler) => (isPaced(opts) ? dispatch(opts, handler) : dispatchDirect(dispatch, opts, handler, terms(opts)));
}
