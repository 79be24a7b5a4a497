// Real HTTP servers on loopback that answer for several host names at once (virtual hosts).
// Tests reach them through curl-style resolve entries: `a.test:PORT:127.0.0.1`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  host: string;
  method: string;
  /** Path and query as sent. */
  path: string;
  userAgent: string | undefined;
  /** performance.timeOrigin-based ms when the request arrived. */
  startedAt: number;
  /** ms when the handler ended the response (undefined while in flight or if it never ended). */
  endedAt?: number;
}

export type HostHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface VirtualHosts {
  port: number;
  /** Every request seen, in arrival order. */
  log: LoggedRequest[];
  /** `http://HOST:PORT` for one of the hosts. */
  origin(host: string): string;
  /** `HOST:PORT:127.0.0.1` for every host (the `resolve` option / `--resolve` flag). */
  resolve: string[];
  /** Requests seen for one host (optionally one path). */
  requests(host: string, path?: string): LoggedRequest[];
  close(): Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

/** Start one loopback server answering for every host in `hosts` (routed by the Host header). */
export async function startVirtualHosts(hosts: Record<string, HostHandler>, port = 0): Promise<VirtualHosts> {
  const log: LoggedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const entry: LoggedRequest = {
      host,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      userAgent: req.headers['user-agent'],
      startedAt: now(),
    };
    log.push(entry);
    // Stamp the end when the handler hands over the last byte, not on 'finish': 'finish' can fire
    // after the client has already read the response, which makes polite gaps look short.
    const end = res.end.bind(res) as (...a: unknown[]) => http.ServerResponse;
    res.end = ((...args: unknown[]) => {
      entry.endedAt ??= now();
      return end(...args);
    }) as typeof res.end;
    const handler = hosts[host];
    if (!handler) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end(`no such host here: ${host}\n`);
      return;
    }
    try {
      await handler(req, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    log,
    origin: (host) => `http://${host}:${actual}`,
    resolve: Object.keys(hosts).map((h) => `${h}:${actual}:127.0.0.1`),
    requests: (host, path) => log.filter((r) => r.host === host && (path === undefined || r.path === path)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A handler that serves `robots` at /robots.txt and a small HTML page for every other path. */
export function site(robots: string | null, pages?: (path: string) => string | undefined): HostHandler {
  return (req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') {
      if (robots === null) return void res.writeHead(404).end('not found');
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    }
    const body = pages?.(path) ?? `<!doctype html><title>${path}</title><p>page ${path}</p>`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  };
}
