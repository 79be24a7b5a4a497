// One DevTools session to one target, whatever carries it: a Playwright CDPSession (a page or an
// out-of-process frame), or a session nested inside one (non-flat `Target.sendMessageToTarget`),
// which is how a worker, an iframe or a popup that Playwright offers no session for is reached.
import { EventEmitter } from 'node:events';
import type { CDPSession } from 'playwright-core';

/** Commands go out, events come in; `detach` ends the session. */
export interface Channel {
  send<T = unknown>(method: string, params?: object): Promise<T>;
  on(event: string, listener: Listener): void;
  off(event: string, listener: Listener): void;
  /** Routes messages of nested sessions (`Target.attachedToTarget` with `flatten: false`). */
  readonly children: ChildRouter;
  detach(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Listener = (params: any) => void;

/** A DevTools session of another driver (Puppeteer's CDPSession), in the shape used here. */
export interface SessionLike {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, fn: Listener): unknown;
  off(event: string, fn: Listener): unknown;
  detach(): Promise<void>;
}

/** A Playwright CDPSession (or another driver's session of the same shape) as a Channel. */
export function sessionChannel(session: CDPSession | SessionLike): Channel {
  const s = session as unknown as {
    send(method: string, params?: object): Promise<unknown>;
    on(event: string, fn: Listener): void;
    off(event: string, fn: Listener): void;
  };
  const channel: Channel = {
    send: <T>(method: string, params?: object) => s.send(method, params) as Promise<T>,
    on: (event, fn) => s.on(event, fn),
    off: (event, fn) => s.off(event, fn),
    children: undefined as unknown as ChildRouter,
    detach: () => session.detach().catch(() => {}),
  };
  (channel as { children: ChildRouter }).children = new ChildRouter(channel);
  return channel;
}

interface Wire {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message: string };
}

/** Demultiplexes `Target.receivedMessageFromTarget` of one parent into its nested sessions. */
export class ChildRouter {
  private readonly sessions = new Map<string, ChildChannel>();
  private listening = false;
  constructor(private readonly parent: Channel) {}

  private readonly onMessage = (e: { sessionId: string; message: string }): void => {
    this.sessions.get(e.sessionId)?.receive(JSON.parse(e.message) as Wire);
  };
  private readonly onDetached = (e: { sessionId: string }): void => {
    this.sessions.get(e.sessionId)?.closed();
    this.sessions.delete(e.sessionId);
  };

  /** The nested session `sessionId` (from a non-flat attach) as a Channel. */
  open(sessionId: string): Channel {
    if (!this.listening) {
      this.listening = true;
      this.parent.on('Target.receivedMessageFromTarget', this.onMessage as Listener);
      this.parent.on('Target.detachedFromTarget', this.onDetached as Listener);
    }
    const child = new ChildChannel(this.parent, sessionId, () => this.sessions.delete(sessionId));
    this.sessions.set(sessionId, child);
    return child;
  }

  stop(): void {
    for (const child of this.sessions.values()) child.closed();
    this.sessions.clear();
    if (!this.listening) return;
    this.listening = false;
    this.parent.off('Target.receivedMessageFromTarget', this.onMessage as Listener);
    this.parent.off('Target.detachedFromTarget', this.onDetached as Listener);
  }
}

class ChildChannel implements Channel {
  private lastId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly events = new EventEmitter();
  readonly children: ChildRouter = new ChildRouter(this);
  constructor(
    private readonly parent: Channel,
    private readonly sessionId: string,
    private readonly forget: () => void,
  ) {
    this.events.setMaxListeners(0);
  }

  send<T>(method: string, params: object = {}): Promise<T> {
    const id = ++this.lastId;
    const message = JSON.stringify({ id, method, params });
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.parent.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message }).catch((err: unknown) => {
        this.pending.delete(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  receive(m: Wire): void {
    if (m.id !== undefined) {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(`${m.error.message}`));
      else p?.resolve(m.result);
    } else if (m.method) this.events.emit(m.method, m.params);
  }

  closed(): void {
    for (const p of this.pending.values()) p.reject(new Error('target closed'));
    this.pending.clear();
    this.children.stop();
  }

  on(event: string, fn: Listener): void {
    this.events.on(event, fn);
  }
  off(event: string, fn: Listener): void {
    this.events.off(event, fn);
  }
  async detach(): Promise<void> {
    this.forget();
    this.closed();
    await this.parent.send('Target.detachFromTarget', { sessionId: this.sessionId }).catch(() => {});
  }
}
