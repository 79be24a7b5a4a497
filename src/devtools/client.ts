// One DevTools client of the endpoint (one WebSocket). It gets a browser-level session of its own
// (or, on a /devtools/page/ID socket, a session to that page) and may address only the sessions
// it opened from there: the gate's sessions are not its to detach, to Fetch.disable, or to see.
// Commands that would take the browser from under the gate, or from other clients, are refused.
import type { Message, SessionOwner, Upstream } from './upstream.js';

/** What the client's socket must offer. */
export interface ClientSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** The Robots domain, answered by the endpoint rather than the browser (robots-domain.ts). */
export interface DomainHandler {
  /** Answers `method` (a `Robots.*` command) for `client` on session `key`. */
  handle(client: Client, key: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Refused outright, whatever the session: why, in DevTools' error text. */
const REFUSED: Record<string, string> = {
  'Browser.crash': 'the browser is shared with the robots.txt gate and other clients',
  'Browser.crashGpuProcess': 'the browser is shared with the robots.txt gate and other clients',
  // Would give page scripts a DevTools session of their own, outside this endpoint's checks.
  'Target.exposeDevToolsProtocol': 'page scripts get no DevTools session behind the robots.txt gate',
  // Loads a URL from the browser process, not from a page the gate intercepts.
  'Network.loadNetworkResource': 'it fetches from outside the pages the robots.txt gate intercepts',
  'Tethering.bind': 'the endpoint opens no ports but its own',
  // A command inside another's `message` string passes no check of this endpoint's: wrapped so,
  // Target.createTarget opened a disallowed URL before the gate held its page, and
  // Network.loadNetworkResource fetched one. Sessions here are flat: send with their sessionId.
  'Target.sendMessageToTarget': 'nested (non-flat) sessions are not relayed: attach with flatten: true and send commands with the sessionId',
};

/** Error codes as Chromium uses them. */
const SERVER_ERROR = -32000;
const INVALID = -32600;

export class Client implements SessionOwner {
  /** Sessions the client opened (its root among them), → the target each is attached to. */
  private readonly sessions = new Map<string, string | null>();
  /** Sessions on which the client enabled the Robots domain ('' stands for its root). */
  readonly robots = new Set<string>();
  private root = '';
  private closed = false;

  constructor(
    private readonly socket: ClientSocket,
    private readonly upstream: Upstream,
    private readonly domains: DomainHandler,
    /** The gate's sessions: refused by name, even if a client guessed one. */
    private readonly gateSessions: ReadonlySet<string>,
    /** Target.createTarget, its URL opened only once the gate holds the target (create-target.ts). */
    private readonly createTarget: (params: Record<string, unknown>, sessionId: string) => Promise<Message>,
    /** Told before Target.closeTarget or a session's Page.close goes to the browser (TargetWatch.closing). */
    private readonly closing: (targetId: string) => void = () => {},
  ) {}

  /** The target of the client's root session: null for a browser-level one. */
  rootTarget: string | null = null;

  /**
   * Opens the client's root session: browser-level, or attached to page `targetId`.
   * @throws (rejects) ProtocolError when the target is gone.
   */
  async open(targetId: string | null): Promise<void> {
    const browser = await this.upstream.call<{ sessionId: string }>('Target.attachToBrowserTarget');
    this.helper = browser.sessionId;
    this.sessions.set(this.helper, null);
    this.upstream.own(this.helper, this);
    this.root = this.helper;
    if (targetId) {
      // Attached from the client's own browser session, so that its events are the client's.
      const r = await this.upstream.call<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }, this.helper);
      this.root = r.sessionId;
      this.adopt(this.root, targetId);
    }
    this.rootTarget = targetId;
    if (this.closed) await this.release();
  }

  /** The browser-level session a page socket's session was opened from (the root otherwise). */
  private helper = '';

  /** The target a session of this client is attached to (`''`: the root). */
  targetOf(key: string): string | null {
    return this.sessions.get(key === '' ? this.root : key) ?? null;
  }

  /** One text frame from the client. */
  onText(text: string): void {
    let m: Message;
    try {
      m = JSON.parse(text) as Message;
    } catch {
      return this.reply({ id: 0, error: { code: -32700, message: 'Message must be a valid JSON' } });
    }
    if (typeof m !== 'object' || m === null || typeof m.id !== 'number' || typeof m.method !== 'string') {
      return this.reply({ id: typeof m?.id === 'number' ? m.id : 0, error: { code: INVALID, message: 'Message must have integer id and string method' } });
    }
    const clientId = m.id;
    const sessionId = m.sessionId;
    const fail = (code: number, message: string) => this.reply({ id: clientId, error: { code, message }, ...(sessionId ? { sessionId } : {}) });
    if (sessionId !== undefined && !this.sessions.has(sessionId)) return fail(-32001, 'Session with given id not found.');
    const params = (m.params ?? {}) as Record<string, unknown>;
    const refusal = this.refusal(m.method, params);
    if (refusal) return fail(SERVER_ERROR, `robots-gate: ${m.method} refused: ${refusal}`);
    if (m.method === 'Browser.close') {
      // The browser outlives its clients (the endpoint started it for all of them): closing it
      // means this client is done, as a disconnect.
      this.reply({ id: clientId, result: {}, ...(sessionId ? { sessionId } : {}) });
      this.socket.close(1000, 'Browser.close: the client is disconnected; robots-gate browser keeps the browser');
      return;
    }
    if (m.method.startsWith('Robots.')) {
      this.domains.handle(this, sessionId ?? '', m.method, params).then(
        (result) => this.reply({ id: clientId, result, ...(sessionId ? { sessionId } : {}) }),
        (err: { protocolCode?: number; message?: string }) => fail(err.protocolCode ?? SERVER_ERROR, err.message ?? String(err)),
      );
      return;
    }
    const target = sessionId ?? this.root;
    const relay = (r: Message) => {
      this.learn(m.method!, params, r);
      const out: Message = { id: clientId };
      if (r.error) out.error = r.error;
      else out.result = r.result ?? {};
      if (sessionId !== undefined) out.sessionId = sessionId;
      this.reply(out);
    };
    if (m.method === 'Target.createTarget') return void this.createTarget(params, target).then(relay);
    if (m.method === 'Target.closeTarget' && typeof params.targetId === 'string') this.closing(params.targetId);
    // Page.close runs the page's beforeunload first, which may keep it open: its waiting
    // navigations give up all the same (failed, nothing sent), as the client asked it gone.
    else if (m.method === 'Page.close') {
      const closed = this.targetOf(sessionId ?? '');
      if (closed !== null) this.closing(closed);
    }
    this.upstream.forward({ method: m.method, params, sessionId: target }, relay);
  }

  private refusal(method: string, params: Record<string, unknown>): string | null {
    const why = REFUSED[method];
    if (why) return why;
    if (method === 'Target.detachFromTarget') {
      const s = params.sessionId;
      if (typeof s === 'string' && this.gateSessions.has(s)) return 'that session is the robots.txt gate\'s';
      if (typeof s === 'string' && !this.sessions.has(s)) return 'that session is not this client\'s';
    }
    return null;
  }

  /** Sessions the client opens by command are its own. */
  private learn(method: string, params: Record<string, unknown>, r: Message): void {
    const sessionId = r.result?.sessionId;
    if (typeof sessionId !== 'string') return;
    if (method === 'Target.attachToTarget') this.adopt(sessionId, typeof params.targetId === 'string' ? params.targetId : null);
    else if (method === 'Target.attachToBrowserTarget') this.adopt(sessionId, null);
  }

  private adopt(sessionId: string, targetId: string | null): void {
    if (this.sessions.has(sessionId)) return;
    this.sessions.set(sessionId, targetId);
    this.upstream.own(sessionId, this);
  }

  /** An event of one of the client's sessions. */
  receive(m: Message): void {
    if (m.method === 'Target.attachedToTarget') {
      const p = m.params as { sessionId: string; targetInfo: { targetId: string } };
      this.adopt(p.sessionId, p.targetInfo.targetId);
    }
    // A page socket's client never asked for the browser session its page session came from.
    if (m.sessionId === this.helper && this.helper !== this.root) return;
    this.event(m.sessionId === this.root ? { method: m.method, params: m.params } : m);
  }

  detached(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.robots.delete(sessionId);
    if (sessionId === this.root) this.socket.close(1011, 'the target detached');
  }

  /** Sends an event (no sessionId: the root's). */
  event(m: Message): void {
    if (!this.closed) this.socket.send(JSON.stringify(m));
  }

  /** Sends `m` on session `key` ('' the root). */
  eventOn(key: string, method: string, params: Record<string, unknown>): void {
    this.event(key === '' || key === this.root ? { method, params } : { method, params, sessionId: key });
  }

  private reply(m: Message): void {
    if (!this.closed) this.socket.send(JSON.stringify(m));
  }

  /** The socket closed: end the client's sessions (its auto-attach, its Fetch, its contexts). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private async release(): Promise<void> {
    if (!this.helper) return;
    for (const s of this.sessions.keys()) this.upstream.disown(s);
    this.sessions.clear();
    // Its sessions, auto-attached or attached from it, end with it.
    await this.upstream.call('Target.detachFromTarget', { sessionId: this.helper }).catch(() => {});
  }
}
