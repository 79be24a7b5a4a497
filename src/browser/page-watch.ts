// New pages of a gated context (context.newPage(), window.open, a link with target=_blank), a
// gated page's popups, and shared workers of a gated page's context are gated from their
// creation: one browser-level session auto-attaches to every new target with
// `waitForDebuggerOnStart`, so a new target's scripts wait until its own session has Fetch
// enabled. RFC 9309 §2.2.2 holds for a popup's first URL as for any.
//
// The hold does not cover a new page's first request: Chromium sends it while the page waits for
// the debugger, and on a loaded machine it can leave before the page's session intercepts. The
// browser-level document session (document-gate.ts) stands behind the pages' sessions for that,
// and decides only what they did not let go.
import type { Browser, BrowserContext } from 'playwright-core';
import type { Channel } from './channel.js';
import { directBrowserSession, type BrowserSession } from './direct-session.js';
import type { ClaimState, TargetInfo } from './claim.js';

/** What one gatePage / gateContext handle gives the watch. */
export interface PageOwner {
  disposed(): boolean;
  /** Whether the handle gates this new target (a page of its context, its page's popup, …). */
  wants(target: TargetInfo): boolean;
  /** The handle's gated targets by targetId. */
  readonly claims: Map<string, ClaimState>;
  /** Gate the new target `targetId` over `channel`. */
  adopt(targetId: string, channel: Channel): ClaimState;
}

interface AttachedToTarget {
  sessionId: string;
  targetInfo: TargetInfo;
  waitingForDebugger: boolean;
}

/** Holds new targets at creation until the owners that want them have them gated. One per browser
 *  session; exported for drivers other than Playwright (robots-gate/puppeteer). */
export class PageWatch {
  private readonly owners = new Set<PageOwner>();
  private enabled: Promise<unknown> | null = null;
  /** Targets this watch attaches to itself (for a second owner): their attach events are its own. */
  private readonly attaching = new Set<string>();

  constructor(private readonly session: BrowserSession) {
    session.on('Target.attachedToTarget', (e: AttachedToTarget) => void this.onAttached(e));
  }

  async add(owner: PageOwner): Promise<void> {
    this.owners.add(owner);
    this.enabled ??= this.session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    await this.enabled;
  }

  remove(owner: PageOwner): void {
    this.owners.delete(owner);
    if (this.owners.size || !this.enabled) return;
    this.enabled = null;
    this.session.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true }).catch(() => {});
  }

  private async onAttached(e: AttachedToTarget): Promise<void> {
    const info = e.targetInfo;
    if (this.attaching.has(info.targetId) && !e.waitingForDebugger) return;
    const child = this.session.child(e.sessionId);
    // Targets that exist already (gated by their handles' own guard), targets nobody here gates,
    // and targets that are not pages or shared workers (a service worker is blocked by the gated
    // context; a dedicated worker or an iframe is attached by its page's session) go on at once.
    const owners = e.waitingForDebugger ? [...this.owners].filter((o) => !o.disposed() && o.wants(info)) : [];
    if (!owners.length) {
      await child.send('Runtime.runIfWaitingForDebugger').catch(() => {});
      await child.detach();
      return;
    }
    const { targetId } = info;
    // The first owner gates over the session that holds the target; any other over one of its own.
    const claims = await Promise.all(
      owners.map(async (o, i) => {
        const known = o.claims.get(targetId);
        if (known) return known;
        if (i === 0) return o.adopt(targetId, child);
        this.attaching.add(targetId);
        try {
          const { sessionId } = await this.session.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
          return o.claims.get(targetId) ?? o.adopt(targetId, this.session.child(sessionId));
        } catch {
          return null; // the target went away meanwhile
        } finally {
          this.attaching.delete(targetId);
        }
      }),
    );
    await Promise.all(claims.map((c) => c?.ready.catch(() => {})));
    if (claims.every((c) => c?.isReady)) {
      await child.send('Runtime.runIfWaitingForDebugger').catch(() => {});
      return;
    }
    // Fail closed: a target that could not be gated never runs.
    await this.session.send('Target.closeTarget', { targetId }).catch(() => {});
  }
}

const watches = new WeakMap<Browser | BrowserContext, Promise<PageWatch | null>>();

/**
 * Registers `owner` with the page watch of `context`'s browser (opened on first use, one per browser).
 * @returns an unregister function; null when Playwright does not run in this process (no
 *  server-side session): document-gate.ts covers new pages then.
 */
export async function watchNewPages(context: BrowserContext, owner: PageOwner): Promise<(() => Promise<void>) | null> {
  // One watch per browser; a persistent context is a browser of its own (its `browser()` is null).
  const key = context.browser() ?? context;
  let pending = watches.get(key);
  if (!pending) {
    pending = directBrowserSession(context).then((s) => (s ? new PageWatch(s) : null));
    watches.set(key, pending);
  }
  const watch = await pending;
  if (!watch) return null;
  await watch.add(owner);
  return async () => watch.remove(owner);
}
