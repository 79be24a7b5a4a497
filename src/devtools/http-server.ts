// The endpoint's HTTP side, shaped as Chromium's own (`/json/version`, `/json/list`, `/json/new`,
// `/json/activate/ID`, `/json/close/ID`, `/json/protocol`, WebSockets at `/devtools/browser/ID` and
// `/devtools/page/ID`), each under `/<token>/`. Loopback only; a request without the token, from
// a Host that is not loopback (DNS rebinding), or a WebSocket from a web page (an Origin header,
// refused as Chromium refuses it) gets 403 and nothing else.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { EndpointListenError } from './errors.js';
import type { Message, Upstream } from './upstream.js';

export interface HttpSideOptions {
  port: number;
  token: string;
  upstream: Upstream;
  /** Target.createTarget with the URL gated from its first request (create-target.ts). */
  createTarget(params: { url: string }): Promise<Message>;
  /** Told before /json/close/ID goes to the browser (TargetWatch.closing). */
  closing(targetId: string): void;
  /** Chromium's protocol description with the Robots domain (protocol.ts). */
  protocol(): Promise<Record<string, unknown>>;
  /** A client connected: `targetId` null for the browser socket. */
  connect(socket: WebSocket, targetId: string | null): void;
}

const LOOPBACK_HOST = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(?::\d+)?$/i;

/** What Chromium's own /json/list shows (not the browser, its tabs, or its own UI). */
const LISTED = new Set(['page', 'iframe', 'worker', 'shared_worker', 'service_worker', 'webview', 'other']);

interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
  attached: boolean;
}

export class HttpSide {
  readonly browserId = randomUUID();
  private server: http.Server | null = null;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 * 1024, perMessageDeflate: false });
  port = 0;

  constructor(private readonly o: HttpSideOptions) {}

  /** @throws EndpointListenError (port taken, not permitted) */
  async listen(): Promise<void> {
    const server = http.createServer((req, res) => void this.onRequest(req, res).catch(() => res.destroy()));
    server.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(new EndpointListenError(this.o.port, err)));
      server.listen(this.o.port, '127.0.0.1', () => resolve());
    });
    server.on('error', () => {});
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  get base(): string {
    return `127.0.0.1:${this.port}/${this.o.token}`;
  }

  get webSocketDebuggerUrl(): string {
    return `ws://${this.base}/devtools/browser/${this.browserId}`;
  }

  /** The path after the token, or null when the token is missing or wrong. */
  private route(req: http.IncomingMessage): { path: string } | null {
    if (!LOOPBACK_HOST.test(req.headers.host ?? '')) return null;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, first, ...rest] = url.pathname.split('/');
    if (this.isToken(first ?? '')) return { path: `/${rest.join('/')}` };
    // Also `?token=` on Chromium's own paths, for clients that take only host and port.
    if (this.isToken(url.searchParams.get('token') ?? '')) return { path: url.pathname };
    return null;
  }

  private isToken(s: string): boolean {
    const a = Buffer.from(s);
    const b = Buffer.from(this.o.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const r = this.route(req);
    const json = (status: number, body: unknown) =>
      void res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body, null, 3));
    if (!r) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('robots-gate browser: this endpoint needs its token: use the URL `robots-gate browser` printed\n');
    const path = r.path.replace(/\/+$/, '') || '/';
    const up = this.o.upstream;
    if (path === '/json/version') {
      const v = await up.call<{ protocolVersion: string; product: string; userAgent: string; jsVersion: string; revision: string }>('Browser.getVersion');
      return json(200, {
        Browser: v.product,
        'Protocol-Version': v.protocolVersion,
        'User-Agent': v.userAgent,
        'V8-Version': v.jsVersion,
        'WebKit-Version': v.revision,
        webSocketDebuggerUrl: this.webSocketDebuggerUrl,
      });
    }
    if (path === '/json/protocol') {
      const protocol = await this.o.protocol().catch((err: Error) => err);
      if (protocol instanceof Error) return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`robots-gate browser: ${protocol.message}\n`);
      return json(200, protocol);
    }
    if (path === '/json' || path === '/json/list') {
      const { targetInfos } = await up.call<{ targetInfos: TargetInfo[] }>('Target.getTargets');
      return json(200, targetInfos.filter((t) => LISTED.has(t.type)).map((t) => this.describe(t)));
    }
    if (path === '/json/new') {
      // As Chromium: the whole query is the URL (`/json/new?https://x.test/?a=b`), less our `token=`.
      const raw = (req.url ?? '').split('?').slice(1).join('?').replace(/(?:^|&)token=[^&]*/, '');
      let url = raw || 'about:blank';
      try {
        url = decodeURIComponent(url);
      } catch {
        // not %-encoded after all: taken as it is
      }
      const created = await this.o.createTarget({ url });
      const targetId = created.result?.targetId;
      if (typeof targetId !== 'string') return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`Could not create a new page: ${created.error?.message ?? 'no target'}\n`);
      const { targetInfo } = await up.call<{ targetInfo: TargetInfo }>('Target.getTargetInfo', { targetId });
      // Still at about:blank (create-target.ts): named by the URL it is opening, as Chromium names it.
      return json(200, this.describe({ ...targetInfo, url }));
    }
    const m = /^\/json\/(activate|close)\/([^/]+)$/.exec(path);
    if (m) {
      if (m[1] === 'close') this.o.closing(m[2]!);
      const ok = await up.call(m[1] === 'close' ? 'Target.closeTarget' : 'Target.activateTarget', { targetId: m[2] }).then(
        () => true,
        () => false,
      );
      if (!ok) return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`No such target id: ${m[2]}\n`);
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(m[1] === 'close' ? 'Target is closing\n' : 'Target activated\n');
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`robots-gate browser: unknown path ${path}\n`);
  }

  private describe(t: TargetInfo): Record<string, string> {
    return {
      description: '',
      devtoolsFrontendUrl: '',
      id: t.targetId,
      title: t.title,
      type: t.type,
      url: t.url,
      webSocketDebuggerUrl: `ws://${this.base}/devtools/page/${t.targetId}`,
    };
  }

  private onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (why: string) => {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nrobots-gate browser: ${why}\n`);
    };
    const r = this.route(req);
    if (!r) return refuse('this endpoint needs its token: use the URL `robots-gate browser` printed');
    if (req.headers.origin !== undefined) return refuse('WebSockets from web pages (an Origin header) are refused');
    const browser = r.path === `/devtools/browser/${this.browserId}` || r.path === '/devtools/browser';
    const page = /^\/devtools\/page\/([^/]+)$/.exec(r.path);
    if (!browser && !page) return refuse(`no DevTools socket at ${r.path}`);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.o.connect(ws, page ? page[1]! : null));
  }

  /** Stops listening and closes every client socket. */
  async close(code = 1001, reason = 'robots-gate browser is stopping'): Promise<void> {
    for (const ws of this.wss.clients) ws.close(code, reason);
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
