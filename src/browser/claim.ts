// What a gatePage / gateContext handle keeps for each target it gates (a page's, a shared
// worker's), and what a target says of itself. The page watch and the browser-level document
// session both create a claim when they hand a new target to the handle.
import type { Page, Request } from 'playwright-core';
import type { RequestLike, RequestMatcher } from './request-matcher.js';
import type { Channel } from './channel.js';
import { gateTarget, type DriverPage, type DriverRequest, type TargetGateOptions } from './target-gate.js';

/** One gated target (a page's): who it belongs to once known, and how to stop gating it. */
export interface Claim<R extends RequestLike = Request, P = Page> {
  page: P | null;
  /** Playwright's requests of the page (while someone listens to `allowed`), and its failed ones. */
  started: RequestMatcher<R> | null;
  failed: RequestMatcher<R> | null;
  /** The page's frames (its children's included), id → URL. */
  readonly frames: Map<string, string>;
  /** Settles once the target's requests pause (Fetch enabled); rejects when they cannot. */
  readonly ready: Promise<void>;
  isReady: boolean;
  /** Aborted when the target is gone (its page closed, the browser disconnected) or stop()ped:
   *  a navigation of it waiting for its host's slot stops waiting. */
  readonly gone: AbortController;
  stop(): Promise<void>;
}

/** What a target says of itself (DevTools' TargetInfo, the fields used here). */
export interface TargetInfo {
  targetId: string;
  /** 'page', 'shared_worker', 'service_worker', 'browser', … */
  type: string;
  browserContextId?: string;
  /** For a popup: the page that opened it. */
  openerId?: string;
}

/** What the page watch needs of a claim, whatever the driver. */
export interface ClaimState {
  readonly ready: Promise<void>;
  readonly isReady: boolean;
}

/**
 * A claim on `targetId`, gated behind `channel` from now on (gateTarget): one builder for every
 * driver's page gate. `ready` settles once the target's requests pause.
 */
export function openClaim<R extends DriverRequest, P extends DriverPage>(
  targetId: string,
  channel: Channel,
  page: P | null,
  o: Omit<TargetGateOptions<R, P>, 'page' | 'requests' | 'frames' | 'closed'>,
): Claim<R, P> {
  let stopFn: (() => Promise<void>) | null = null;
  const gone = new AbortController();
  const claim: Claim<R, P> = {
    gone,
    page,
    started: null,
    failed: null,
    frames: new Map([[targetId, '']]),
    isReady: false,
    ready: Promise.resolve(),
    stop: async () => {
      claim.started?.stop();
      claim.failed?.stop();
      gone.abort(new Error('gating stopped'));
      await stopFn?.();
    },
  };
  (claim as { ready: Promise<void> }).ready = gateTarget<R, P>(channel, {
    ...o,
    page: () => claim.page,
    requests: (allowed) => (allowed ? claim.started : claim.failed),
    frames: claim.frames,
    closed: gone.signal,
  }).then((stop) => {
    stopFn = stop;
    claim.isReady = true;
  });
  return claim;
}
