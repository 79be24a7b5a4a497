// What a gatePage / gateContext handle keeps for each target it gates (a page's, a shared
// worker's), and what a target says of itself. The page watch and the browser-level document
// session both create a claim when they hand a new target to the handle.
import type { Page, Request } from 'playwright-core';
import type { RequestLike, RequestMatcher } from './request-matcher.js';

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
