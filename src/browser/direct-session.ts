// A DevTools session that skips Playwright's client/server hops when Playwright runs in this
// process (playwright-core's `chromium.launch()`; not `connect`/`connectOverCDP`).
//
// Why: a gated request waits in Chromium until its decision comes back. Through the public
// CDPSession every paused request crosses Playwright's client/server boundary twice (one
// `setImmediate` and a protocol validation each way); on 2 cores that added 0.10 to 0.25 of an
// ungated page load for a page of 50 subresources (bench/README.md). The server-side session
// Playwright keeps behind that CDPSession talks to the browser's pipe directly.
//
// It uses Playwright internals (`toImpl`, the server's CRPage / CRBrowser): every step is checked
// and any mismatch returns null, so callers fall back to the public CDPSession and stay correct,
// only slower. test/browser/direct-session.test.ts fails when the pinned Playwright stops
// offering the fast path.
import { EventEmitter } from 'node:events';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ChildRouter, type Channel, type Listener } from './channel.js';

/** Playwright's server-side CDPSession (packages/playwright-core/src/server/chromium/crConnection.ts). */
interface ServerSession {
  on(event: 'event', fn: (e: { method: string; params: unknown }) => void): void;
  on(event: 'close', fn: () => void): void;
  _send(method: string, params?: object): Promise<unknown>;
  attachToTarget(targetId: string): Promise<ServerSession>;
  _session: RawSession;
}

/** Playwright's CRSession: one DevTools session on the browser's pipe. */
interface RawSession {
  send(method: string, params?: object): Promise<unknown>;
  detach(): Promise<void>;
  dispose(): void;
  createChildSession(sessionId: string, listener: (method: string, params: unknown) => void): RawSession;
}

/** A browser-level session whose flat child sessions (auto-attached targets) are Channels too. */
export interface BrowserSession extends Channel {
  /** The flat child session `sessionId` (from `Target.attachedToTarget`, flatten: true). */
  child(sessionId: string): Channel;
}

interface ServerBrowser {
  _clientRootSession(): Promise<ServerSession>;
  newBrowserCDPSession(): Promise<ServerSession>;
}

type ToImpl = (x: unknown) => unknown;

function toImplOf(x: unknown): ToImpl | null {
  const fn = (x as { _connection?: { toImpl?: unknown } })?._connection?.toImpl;
  return typeof fn === 'function' ? (fn as ToImpl) : null;
}

const isFn = (o: unknown, name: string) => typeof (o as Record<string, unknown> | null)?.[name] === 'function';

function serverBrowserOf(x: unknown): ServerBrowser | null {
  return isFn(x, '_clientRootSession') && isFn(x, 'newBrowserCDPSession') ? (x as ServerBrowser) : null;
}

/** A Channel whose events are fed by `emit`; `send` and `detach` go where the caller says. */
function emitterChannel(send: (method: string, params?: object) => Promise<unknown>, detach: () => Promise<void>) {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const channel: Channel = {
    send: <T>(method: string, params?: object) => send(method, params) as Promise<T>,
    on: (event: string, fn: Listener) => void events.on(event, fn),
    off: (event: string, fn: Listener) => void events.off(event, fn),
    children: undefined as unknown as ChildRouter,
    detach,
  };
  (channel as { children: ChildRouter }).children = new ChildRouter(channel);
  return { channel, emit: (method: string, params: unknown) => void events.emit(method, params) };
}

function channelOf(session: ServerSession): Channel | null {
  if (!isFn(session, '_send') || !isFn(session, 'on') || !isFn(session._session, 'detach')) return null;
  const { channel, emit } = emitterChannel(
    (method, params) => session._send(method, params),
    () => session._session.detach().catch(() => {}),
  );
  session.on('event', (e) => emit(e.method, e.params));
  return channel;
}

/**
 * A session to `page`'s target over Playwright's server side, or null when Playwright does not run
 * in this process (or its internals changed): use `context.newCDPSession(page)` then.
 */
export async function directPageChannel(page: Page): Promise<Channel | null> {
  try {
    const impl = toImplOf(page)?.(page) as { delegate?: { _targetId?: unknown; _browserContext?: { _browser?: unknown } } } | undefined;
    const targetId = impl?.delegate?._targetId;
    const browser = serverBrowserOf(impl?.delegate?._browserContext?._browser);
    if (typeof targetId !== 'string' || !browser) return null;
    const root = await browser._clientRootSession();
    if (!isFn(root, 'attachToTarget')) return null;
    return channelOf(await root.attachToTarget(targetId));
  } catch {
    return null;
  }
}

/**
 * A browser-level session over Playwright's server side, with flat child sessions (which the
 * public CDPSession cannot address: browser-level auto-attach is flat only), or null (see
 * directPageChannel).
 */
export async function directBrowserSession(of: Browser | BrowserContext): Promise<BrowserSession | null> {
  try {
    const impl = toImplOf(of)?.(of) as { _browser?: unknown } | undefined;
    // A context's server object knows its browser, a persistent context's too (whose client
    // `browser()` is null).
    const server = serverBrowserOf(impl?._browser) ?? serverBrowserOf(impl);
    if (!server) return null;
    const session = await server.newBrowserCDPSession();
    const channel = channelOf(session);
    const raw = session._session;
    if (!channel || !isFn(raw, 'createChildSession')) {
      await channel?.detach();
      return null;
    }
    const children = new Map<string, RawSession>();
    channel.on('Target.detachedFromTarget', (e: { sessionId: string }) => {
      children.get(e.sessionId)?.dispose();
      children.delete(e.sessionId);
    });
    return {
      ...channel,
      child(sessionId: string): Channel {
        let child: RawSession | undefined;
        const { channel: c, emit } = emitterChannel(
          (method, params) => child!.send(method, params),
          async () => {
            children.delete(sessionId);
            await raw.send('Target.detachFromTarget', { sessionId }).catch(() => {});
            child!.dispose();
          },
        );
        child = raw.createChildSession(sessionId, emit);
        children.set(sessionId, child);
        return c;
      },
    };
  } catch {
    return null;
  }
}

/** True when Playwright's server side for `x` (a page, context or browser) runs in this process. */
export function inThisProcess(x: Page | BrowserContext | Browser): boolean {
  try {
    return toImplOf(x)?.(x) != null;
  } catch {
    return false;
  }
}

/** DevTools' id of a Playwright context (server side); null for a persistent context's default
 *  one (learn it from a page's target info) and when Playwright runs elsewhere. */
export function directContextId(context: BrowserContext): string | null {
  try {
    const id = (toImplOf(context)?.(context) as { _browserContextId?: unknown } | undefined)?._browserContextId;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
