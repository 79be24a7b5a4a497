// `robots-gate browser` as a library: Debian's Chromium behind a DevTools endpoint that any
// DevTools client (Playwright's connectOverCDP, Puppeteer, chrome-remote-interface, Python's
// websockets, chromedp, Selenium's CDP) can drive, with every request its pages make put to the
// gate first. The gate's own session holds each target (target-watch.ts); clients get sessions
// of their own over the same pipe (upstream.ts, client.ts); the Robots domain says why
// (robots-domain.ts).
import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import type { Decision } from '../gate/types.js';
import type { Interval } from '../politeness/interval.js';
import type { RateLimiter } from '../stores/types.js';
import { navigationPace } from '../browser/navigation-pace.js';
import { decideNowWith, decideWith } from '../browser/page-claims.js';
import { Chromium } from './chromium.js';
import { Client } from './client.js';
import { createGatedTarget } from './create-target.js';
import { BrowserStartError, type BrowserExitedError } from './errors.js';
import { DEFAULT_CHROMIUM } from '../browser/launch.js';
import { HttpSide } from './http-server.js';
import { readProtocol } from './protocol.js';
import type { ResponseSeen } from './responses.js';
import { RobotsDomain } from './robots-domain.js';
import { TargetWatch, type TargetRequest, type UngatableTarget } from './target-watch.js';
import { Upstream } from './upstream.js';

/** Published for every request the endpoint's gate blocked (a TargetRequest), at no cost when nobody listens. */
export const endpointBlockedChannel = diagnostics.channel('robots-gate:devtools-blocked');
/** Published when a target could not be gated and was closed (`{ targetId, type, error }`). */
export const ungatableChannel = diagnostics.channel('robots-gate:devtools-ungatable');

/** What the endpoint needs from a gate: a `RobotsGate` fits. */
export interface EndpointGate {
  check(url: string): Promise<Decision>;
  /** The decision without I/O, or undefined when `check` must be asked (a `RobotsGate`'s): with
   *  it a warm origin's request is answered in the same tick its pause arrives. */
  peek?(url: string): Decision | undefined;
  readonly userAgent: string;
  readonly productToken?: string | readonly string[];
  /** With `intervalFor`: navigations are spaced on the gate's terms (see `politeness`). */
  readonly limiter?: RateLimiter;
  intervalFor?(url: string): Interval;
}

export interface DevToolsEndpointOptions {
  gate: EndpointGate;
  /** Port on 127.0.0.1 (default 9222; 0 picks a free one). */
  port?: number;
  /** Default /usr/bin/chromium (Debian's `chromium` package). */
  executablePath?: string;
  /** curl-style `HOST:PORT:ADDR` entries: the browser connects there instead (use the gate's own too). */
  resolve?: readonly string[];
  /** The token clients must give; default 24 random bytes, base64url. */
  token?: string;
  /** Time for the browser to answer on its DevTools pipe, in ms (default 30,000). */
  startTimeoutMs?: number;
  /** Emit `response` for what each allowed request got (its HTTP status): costs a few Network
   *  events per request over the pipe (default false). */
  responses?: boolean;
  /** Space every page's navigations by its host's interval, on `gate.limiter` (default true), as
   *  robots-gate/browser's `politeness` option does; `false` for a client that keeps it itself. */
  politeness?: boolean;
}

export interface DevToolsEndpointEvents {
  /** Every request decided (allowed or not), with the target it belongs to. */
  request: [TargetRequest];
  /** With `responses`: a request's HTTP status (or error), `requestId` matching its `request` entry. */
  response: [ResponseSeen];
  /** The browser exited (crashed or killed): every client is disconnected and the endpoint closed. */
  exit: [BrowserExitedError];
}

export class DevToolsEndpoint extends EventEmitter<DevToolsEndpointEvents> {
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly chromium: Chromium,
    private readonly http: HttpSide,
    /** The token every URL carries. */
    readonly token: string,
    private readonly clients: Set<Client>,
  ) {
    super();
  }

  /** `ws://127.0.0.1:PORT/TOKEN/devtools/browser/ID`: what `/json/version` names. */
  get webSocketDebuggerUrl(): string {
    return this.http.webSocketDebuggerUrl;
  }

  /** `http://127.0.0.1:PORT/TOKEN`: `/json/version`, `/json/list`, … under it (Playwright's connectOverCDP takes it). */
  get httpUrl(): string {
    return `http://${this.http.base}`;
  }

  get port(): number {
    return this.http.port;
  }

  /** The browser's process id. */
  get pid(): number | undefined {
    return this.chromium.pid;
  }

  /**
   * Starts Chromium, gates every target it will open, and listens on 127.0.0.1.
   * @throws BrowserNotFoundError (no Chromium at the path), BrowserStartError (it did not start, or did
   *  not answer within `startTimeoutMs`), EndpointListenError.
   */
  static async start(o: DevToolsEndpointOptions): Promise<DevToolsEndpoint> {
    const chromium = await Chromium.start({
      ...(o.executablePath ? { executablePath: o.executablePath } : {}),
      ...(o.resolve ? { resolve: o.resolve } : {}),
      userAgent: o.gate.userAgent,
    });
    let endpoint: DevToolsEndpoint | null = null;
    try {
      const upstream = new Upstream(chromium);
      const token = o.token ?? randomBytes(24).toString('base64url');
      const clients = new Set<Client>();
      const domain = new RobotsDomain(o.gate, clients);
      const watch = new TargetWatch(
        upstream,
        {
          decide: decideWith(o.gate),
          decideNow: decideNowWith(o.gate),
          record: (entry) => {
            if (!entry.decision?.allowed) {
              domain.blocked(entry);
              if (endpointBlockedChannel.hasSubscribers) endpointBlockedChannel.publish(entry);
            }
            endpoint?.emit('request', entry);
          },
          userAgent: o.gate.userAgent,
          ...(o.responses ? { response: (r: ResponseSeen) => void endpoint?.emit('response', r) } : {}),
          pace: navigationPace(o.gate, o.politeness),
        },
        (t: UngatableTarget) => void (ungatableChannel.hasSubscribers && ungatableChannel.publish(t)),
      );
      // A binary that is not Chromium may never answer on the pipe: give up rather than hang.
      const startTimeoutMs = o.startTimeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        watch.start(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new BrowserStartError(o.executablePath ?? DEFAULT_CHROMIUM, `no DevTools answer on its pipe within ${startTimeoutMs} ms`)), startTimeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      let protocol: Promise<Record<string, unknown>> | null = null;
      const http = new HttpSide({
        port: o.port ?? 9222,
        token,
        upstream,
        createTarget: (params) => createGatedTarget(upstream, watch, params),
        closing: (targetId) => watch.closing(targetId),
        // Read on first demand, once: most clients never ask, and reading it starts a browser.
        protocol: () => (protocol ??= readProtocol(o.executablePath ?? DEFAULT_CHROMIUM).catch((err: unknown) => {
          protocol = null;
          throw err;
        })),
        connect: (ws, targetId) => endpoint?.connect(ws, targetId, upstream, domain, watch),
      });
      await http.listen();
      endpoint = new DevToolsEndpoint(chromium, http, token, clients);
      // A page to start from, as Chromium opens one: created after the gate holds every target.
      await upstream.call('Target.createTarget', { url: 'about:blank' });
      chromium.once('exit', (err) => {
        void endpoint!.shutdown(1011, 'the browser exited').then(() => endpoint!.emit('exit', err));
      });
      if (chromium.exited) throw chromium.exited;
      return endpoint;
    } catch (err) {
      await (endpoint ? endpoint.close() : chromium.close());
      throw err;
    }
  }

  private connect(ws: WebSocket, targetId: string | null, upstream: Upstream, domain: RobotsDomain, watch: TargetWatch): void {
    const client = new Client(
      { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) },
      upstream,
      domain,
      watch.sessions,
      (params, sessionId) => createGatedTarget(upstream, watch, params, sessionId),
      (targetId) => watch.closing(targetId),
    );
    const queued: string[] = [];
    let open = false;
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : String(data);
      if (open) client.onText(text);
      else queued.push(text);
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      this.clients.delete(client);
      void client.close();
    });
    client.open(targetId).then(
      () => {
        open = true;
        this.clients.add(client);
        for (const text of queued.splice(0)) client.onText(text);
      },
      () => ws.close(1011, targetId ? `no target ${targetId}` : 'the browser did not open a session'),
    );
  }

  private shutdown(code: number, reason: string): Promise<void> {
    // The gate is never switched off: the browser ends with it still holding every target.
    this.closing ??= (async () => {
      await this.http.close(code, reason);
      await this.chromium.close();
    })();
    return this.closing;
  }

  /** Disconnects every client, stops listening and ends the browser. */
  close(): Promise<void> {
    return this.shutdown(1001, 'robots-gate browser is stopping');
  }
}
