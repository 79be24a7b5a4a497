// The one DevTools connection to the browser (its pipe), shared by the gate and every client.
// Chromium keeps state per session (auto-attach, Fetch interception, enabled domains), not per
// connection: each client gets a browser-level session of its own (`Target.attachToBrowserTarget`),
// the gate keeps the root session and the page sessions it auto-attaches, and messages are routed
// by session id. A client can neither see nor address the gate's sessions.
import { EventEmitter } from 'node:events';
import { ChildRouter, type Channel, type Listener } from '../browser/channel.js';
import type { Chromium } from './chromium.js';

/** A DevTools message: a command (id, method), its reply (id, result | error) or an event (method). */
export interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: string };
  sessionId?: string;
}

/** Whoever owns a session gets its events (and learns when it detaches). */
export interface SessionOwner {
  receive(message: Message): void;
  detached?(sessionId: string): void;
}

/** A DevTools error reply as an Error (`code` is DevTools' JSON-RPC code). */
export class ProtocolError extends Error {
  constructor(
    readonly method: string,
    readonly protocolCode: number,
    message: string,
  ) {
    super(`${method}: ${message}`);
    this.name = 'ProtocolError';
  }
}

export class Upstream {
  private lastId = 0;
  private readonly replies = new Map<number, (reply: Message) => void>();
  private readonly owners = new Map<string, SessionOwner>();
  private readonly rootEvents = new EventEmitter();
  private gone: Error | null = null;

  constructor(private readonly browser: Chromium) {
    this.rootEvents.setMaxListeners(0);
    browser.on('message', (m) => this.route(m as Message));
    browser.once('exit', (err) => {
      this.gone = err;
      const error: Message = { error: { code: -32000, message: err.message } };
      for (const reply of this.replies.values()) reply(error);
      this.replies.clear();
    });
  }

  private route(m: Message): void {
    if (m.id !== undefined) {
      const reply = this.replies.get(m.id);
      this.replies.delete(m.id);
      reply?.(m);
      return;
    }
    if (m.sessionId === undefined) this.rootEvents.emit(m.method ?? '', m.params ?? {});
    else this.owners.get(m.sessionId)?.receive(m);
    if (m.method === 'Target.detachedFromTarget') {
      const id = (m.params as { sessionId?: string } | undefined)?.sessionId;
      const owner = id === undefined ? undefined : this.owners.get(id);
      if (owner) {
        this.owners.delete(id!);
        owner.detached?.(id!);
      }
    }
  }

  /** Sends `message` under a fresh id; `reply` gets the answer with that id (restore your own). */
  forward(message: Message, reply: (m: Message) => void): void {
    if (this.gone) return reply({ error: { code: -32000, message: this.gone.message } });
    const id = ++this.lastId;
    this.replies.set(id, reply);
    this.browser.send({ ...message, id });
  }

  /** Sends a command and resolves with its result. @throws (rejects) ProtocolError */
  call<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const message: Message = { method, params: params as Record<string, unknown> };
      if (sessionId !== undefined) message.sessionId = sessionId;
      this.forward(message, (m) => {
        if (m.error) reject(new ProtocolError(method, m.error.code, m.error.message));
        else resolve((m.result ?? {}) as T);
      });
    });
  }

  own(sessionId: string, owner: SessionOwner): void {
    this.owners.set(sessionId, owner);
  }

  disown(sessionId: string): void {
    this.owners.delete(sessionId);
  }

  ownerOf(sessionId: string): SessionOwner | undefined {
    return this.owners.get(sessionId);
  }

  /** The root session (the gate's) as a Channel. */
  root(): Channel {
    const channel: Channel = {
      send: <T>(method: string, params?: object) => this.call<T & Record<string, unknown>>(method, params) as Promise<T>,
      on: (event: string, fn: Listener) => void this.rootEvents.on(event, fn),
      off: (event: string, fn: Listener) => void this.rootEvents.off(event, fn),
      children: undefined as unknown as ChildRouter,
      detach: async () => {},
    };
    (channel as { children: ChildRouter }).children = new ChildRouter(channel);
    return channel;
  }

  /** The flat session `sessionId` as a Channel owned by the caller (the gate). */
  session(sessionId: string): Channel {
    const events = new EventEmitter();
    events.setMaxListeners(0);
    const channel: Channel = {
      send: <T>(method: string, params?: object) => this.call<T & Record<string, unknown>>(method, params, sessionId) as Promise<T>,
      on: (event: string, fn: Listener) => void events.on(event, fn),
      off: (event: string, fn: Listener) => void events.off(event, fn),
      children: undefined as unknown as ChildRouter,
      detach: async () => {
        this.disown(sessionId);
        channel.children.stop();
        await this.call('Target.detachFromTarget', { sessionId }).catch(() => {});
      },
    };
    (channel as { children: ChildRouter }).children = new ChildRouter(channel);
    this.own(sessionId, {
      receive: (m) => void events.emit(m.method ?? '', m.params ?? {}),
      detached: () => channel.children.stop(),
    });
    return channel;
  }
}
