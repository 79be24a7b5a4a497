// What every driver's page gate (Playwright's, Puppeteer's) keeps: a claim per gated target, the
// pages it gates, the DevTools sessions it opened and the browser contexts it covers; and how a
// page whose session is open is taken in. The drivers differ only in how they open a session and
// learn of new pages.
import type { Channel } from './channel.js';
import { openClaim, type Claim, type TargetInfo } from './claim.js';
import type { NavigationPace } from './navigation-pace.js';
import { RequestMatcher, type RequestEmitter } from './request-matcher.js';
import type { DriverPage, DriverRequest, Verdict } from './target-gate.js';
import { RobotsGate } from '../gate/gate.js';
import type { BrowserGate, GatedRequest } from './types.js';

const toError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/** A gate's check as a verdict: a URL the gate cannot decide is not sent (fail closed). */
export function decideWith(gate: Pick<BrowserGate, 'check'>): (url: string) => Promise<Verdict> {
  return (url) =>
    gate.check(url).then(
      (decision) => ({ decision, error: null }),
      (err: unknown) => ({ decision: null, error: toError(err) }),
    );
}

/** A gate's peek as a verdict without I/O, or undefined when check must be asked (a cold origin,
 *  or a peek that threw: check decides then, and fails closed if it throws too). */
export function decideNowWith(gate: Pick<BrowserGate, 'check' | 'peek'>): ((url: string) => Verdict | undefined) | undefined {
  const peek = gate.peek?.bind(gate);
  if (!peek) return undefined;
  // A RobotsGate subclass that decides in its own check, and inherits peek, would be bypassed
  // for warm origins: its check is the one to ask.
  if (gate instanceof RobotsGate && gate.check !== RobotsGate.prototype.check && gate.peek === RobotsGate.prototype.peek) return undefined;
  return (url) => {
    let decision;
    try {
      decision = peek(url);
    } catch {
      return undefined;
    }
    return decision === undefined ? undefined : { decision, error: null };
  };
}

/** The page objects a driver hands out: their requests, and their close. */
export interface ClaimablePage extends DriverPage {
  once(event: 'close', listener: () => void): unknown;
  close(options?: { runBeforeUnload?: boolean }): Promise<unknown>;
}

/**
 * Ends `gone` when `page` is asked to close, not only once it has: both drivers' close() asks
 * Chromium and waits for the target's end, which a busy renderer delays past a host's slot
 * opening, and a navigation let go then is sent for a page that is closing. A close that runs
 * beforeunload may be refused by the page: that one is waited for.
 */
function endWithClose(page: ClaimablePage, gone: AbortController): void {
  page.once('close', () => gone.abort(new Error('page closed')));
  const close = page.close;
  page.close = function (this: ClaimablePage, options?: { runBeforeUnload?: boolean }) {
    if (!options?.runBeforeUnload) gone.abort(new Error('page closing'));
    return close.call(this, options);
  };
}

/** The handle the claims report to. */
export interface ClaimOwner<R, P> {
  record(entry: GatedRequest<R, P>): void;
  readonly disposed: boolean;
  listenerCount(event: 'allowed'): number;
}

export interface PageClaimsOptions<R, P> {
  readonly gate: BrowserGate;
  readonly userAgent: string | undefined;
  readonly pace: NavigationPace | undefined;
  /** The handle, once it exists (claims are made only after). */
  readonly owner: () => ClaimOwner<R, P>;
  /** The page as the driver's emitter of `request` / `requestfailed`. */
  readonly emitter: (page: P) => RequestEmitter<R>;
}

export class PageClaims<R extends DriverRequest, P extends ClaimablePage> {
  /** targetId → claim, for every target the handle gates. */
  readonly claims = new Map<string, Claim<R, P>>();
  /** Each gated page → when its gating is done. */
  readonly pages = new Map<P, Promise<void>>();
  readonly sessions: Channel[] = [];
  readonly contexts = new Set<string>();
  /** Documents are decided at the browser level (Playwright over connect()). */
  documentsElsewhere = false;
  readonly decide: (url: string) => Promise<Verdict>;
  readonly decideNow: ((url: string) => Verdict | undefined) | undefined;

  constructor(private readonly o: PageClaimsOptions<R, P>) {
    this.decide = decideWith(o.gate);
    this.decideNow = decideNowWith(o.gate);
  }

  /** A claim on `targetId`, gated behind `channel` from now on. */
  claim(targetId: string, channel: Channel, page: P | null): Claim<R, P> {
    const owner = this.o.owner();
    const claim = openClaim<R, P>(targetId, channel, page, {
      decide: this.decide,
      decideNow: this.decideNow,
      record: (entry) => owner.record(entry),
      disposed: () => owner.disposed,
      userAgent: this.o.userAgent,
      documentsElsewhere: this.documentsElsewhere,
      pace: this.o.pace,
    });
    this.withMatchers(claim);
    this.claims.set(targetId, claim);
    return claim;
  }

  /** Pairs entries with the driver's requests: failed ones always, all only while someone listens
   *  to `allowed` (from then on the driver reports every request of the gated pages). */
  withMatchers(claim: Claim<R, P>, all = this.o.owner().listenerCount('allowed') > 0): void {
    if (!claim.page) return;
    const emitter = this.o.emitter(claim.page);
    claim.failed ??= new RequestMatcher<R>(emitter, 'requestfailed');
    if (all) claim.started ??= new RequestMatcher<R>(emitter, 'request');
  }

  /** Someone listens to `allowed` now: every claim pairs all its requests. */
  pairAll(): void {
    for (const claim of this.claims.values()) this.withMatchers(claim, true);
  }

  /**
   * Takes `page`, whose own session `channel` is open on target `info`, in: a target claimed at
   * its creation (a popup gated from its first navigation) gets its page and the session is let
   * go; else the page gets a claim of its own. A closed page's navigation stops waiting for its
   * host's slot. Resolves once the page's requests pause.
   */
  async adopt(page: P, channel: Channel, info: TargetInfo): Promise<void> {
    if (info.browserContextId) this.contexts.add(info.browserContextId);
    const known = this.claims.get(info.targetId);
    if (known) {
      await channel.detach();
      known.page = page;
      endWithClose(page, known.gone);
      this.withMatchers(known);
      return known.ready;
    }
    this.sessions.push(channel);
    const claim = this.claim(info.targetId, channel, page);
    endWithClose(page, claim.gone);
    return claim.ready;
  }

  /** Stops every claim and lets every session go (the handle's dispose). */
  async stop(): Promise<void> {
    await Promise.all([...this.claims.values()].map((c) => c.stop().catch(() => {})));
    await Promise.all(this.sessions.map((s) => s.detach()));
  }
}
