// `robots-gate serve`: a small HTTP server for the tester and the audit browser.
// It serves a fixed list of files built into dist/web/ (never a path taken from a request), the
// audit of the one DIR it was given (or none), and robots.txt fetches for the tester. Every handler
// answers errors as JSON; nothing a request carries can crash the process.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditFiles } from '../audit/reader.js';
import {
  blocked,
  forRun,
  hostStats,
  notUrlLines,
  policyChanges,
  policyVersions,
  runs,
  sent,
  totals,
  type CrawlRecord,
} from '../report/crawl-record.js';
import { loadCrawlRecord } from '../report/load.js';
import { fetchRobotsForTool } from './fetch-robots.js';
import type { AuditHost, AuditHosts, AuditIndex } from './page/api.js';

export interface ServeOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Address to bind. Default `127.0.0.1`: the page can fetch URLs and read the audit, so it is
   *  not for the network unless asked. */
  host?: string;
  /** The crawl's audit DIR for the audit browser; without it the audit API answers 404. */
  auditDir?: string;
  /** curl-style `HOST:PORT:ADDR` entries for the tester's robots.txt fetches. */
  resolve?: readonly string[];
  /** Where the built pages are. Default: dist/web next to this module. */
  assetsDir?: string;
  /** Robots.txt fetch timeout (ms). Default 10,000. */
  fetchTimeoutMs?: number;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The files the server may send: request path → file name in the assets dir and its type. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/audit': { file: 'audit.html', type: 'text/html; charset=utf-8' },
  '/assets/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
  '/assets/tester.js': { file: 'tester.js', type: 'text/javascript; charset=utf-8' },
  '/assets/tester-worker.js': { file: 'tester-worker.js', type: 'text/javascript; charset=utf-8' },
  '/assets/audit.js': { file: 'audit.js', type: 'text/javascript; charset=utf-8' },
};

/** Browsers ask every site for /favicon.ico; without an answer each page load logged a 404 in the
 *  console. A small SVG (a gate: two posts and a bar) needs no file and no build step. */
const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/>' +
    '<path d="M4 3v10M12 3v10M4 6h8M4 10h8" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
);

/** Blocked URLs (and requests sent) listed per host at most; the page says how many more there are. */
const MAX_BLOCKED = 2000;
/** Hosts listed per answer at most (busiest first); `?q=` narrows the list. */
const MAX_HOSTS = 1000;
/** Input lines that were not URLs sent per answer at most. */
const MAX_NOT_URLS = 1000;

/** The tester page sends its run's token in this header (see TOKEN_PLACEHOLDER). */
export const TOKEN_HEADER = 'x-robots-gate-token';
/** Replaced in index.html, when the server starts, by a token made for that run. */
const TOKEN_PLACEHOLDER = '__ROBOTS_GATE_TOKEN__';

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; style-src 'self'; img-src 'self' data:; worker-src 'self'; connect-src 'self'; frame-ancestors 'none'",
};

function defaultAssetsDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
}

/**
 * Start the server. Resolves once it listens.
 * @throws Error when an asset file is missing (the package was not built) or the port is taken.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const assetsDir = options.assetsDir ?? defaultAssetsDir();
  const assets = new Map<string, Buffer>();
  for (const { file } of Object.values(FILES)) {
    if (assets.has(file)) continue;
    try {
      assets.set(file, await readFile(path.join(assetsDir, file)));
    } catch {
      throw new Error(`missing ${path.join(assetsDir, file)}: build the package first (npm run build)`);
    }
  }
  // /api/fetch sends a request wherever it is told: a page on any other site could use it for a
  // blind request forgery against hosts only this machine reaches. Only the tester page served by
  // this run knows the token (another origin cannot read it), and it sends it in a header, which a
  // cross-origin page cannot add without a CORS preflight this server never grants.
  const token = randomBytes(24).toString('base64url');
  const index = assets.get('index.html')!.toString('utf8');
  if (!index.includes(TOKEN_PLACEHOLDER)) throw new Error(`${path.join(assetsDir, 'index.html')} has no token slot: build the package again (npm run build)`);
  assets.set('index.html', Buffer.from(index.replace(TOKEN_PLACEHOLDER, token)));
  const tokenBytes = Buffer.from(token);
  const hasToken = (req: http.IncomingMessage): boolean => {
    const sent = req.headers[TOKEN_HEADER];
    return typeof sent === 'string' && sent.length === token.length && timingSafeEqual(Buffer.from(sent), tokenBytes);
  };

  const bindHost = options.host ?? '127.0.0.1';
  let cached: { signature: string; record: CrawlRecord } | undefined;
  const record = (): CrawlRecord => {
    const dir = options.auditDir;
    if (!dir) throw new HttpError(404, 'serve was started without an audit DIR: run `robots-gate serve DIR`');
    // A crawl may still be writing: re-read when an audit file (or its WAL) changed, not per request.
    const signature = auditSignature(dir);
    if (!cached || cached.signature !== signature) cached = { signature, record: loadCrawlRecord(dir) };
    return cached.record;
  };

  const allowedHosts = new Set<string>();
  // Bound to another address on purpose (--host), the page is meant for other machines, which
  // name this one however they do; the Host check only guards the loopback default.
  const loopbackOnly = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(bindHost);
  const api = async (url: URL): Promise<unknown> => {
    const q = (name: string) => url.searchParams.get(name) ?? undefined;
    switch (url.pathname) {
      case '/api/fetch':
        return fetchForPage(q('url'), options);
      case '/api/audit': {
        const body: AuditIndex = { dir: options.auditDir ?? '', runs: runs(record()) };
        return body;
      }
      case '/api/audit/hosts': {
        const r = forRun(record(), q('run'));
        const filter = q('q')?.toLowerCase();
        const all = hostStats(r).filter((h) => !filter || h.host.includes(filter));
        const shown = all.length > MAX_HOSTS ? all.slice().sort((a, b) => b.attempts - a.attempts).slice(0, MAX_HOSTS) : all;
        const notUrls = notUrlLines(r);
        const body: AuditHosts = {
          totals: totals(r), hosts: shown, hostsOmitted: all.length - shown.length,
          notUrls: notUrls.slice(0, MAX_NOT_URLS), notUrlsOmitted: Math.max(0, notUrls.length - MAX_NOT_URLS),
        };
        return body;
      }
      case '/api/audit/host': {
        const host = q('host');
        if (!host) throw new HttpError(400, 'give ?host=');
        const r = forRun(record(), q('run'));
        const all = blocked(r, host);
        const requests = sent(r, host);
        const body: AuditHost = {
          host,
          versions: policyVersions(r, host),
          changes: policyChanges(r, host),
          blocked: all.slice(0, MAX_BLOCKED),
          blockedOmitted: Math.max(0, all.length - MAX_BLOCKED),
          sent: requests.slice(0, MAX_BLOCKED),
          sentOmitted: Math.max(0, requests.length - MAX_BLOCKED),
        };
        return body;
      }
      default:
        throw new HttpError(404, `no such API: ${url.pathname}`);
    }
  };

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err) => {
      if (!res.headersSent) sendJson(res, 500, { error: `internal error: ${(err as Error)?.message ?? err}` });
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // DNS rebinding: a page on another site could resolve its name to 127.0.0.1 and read the audit.
    // On loopback, only answer requests addressed to this server by its address or a loopback name.
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (loopbackOnly && !allowedHosts.has(hostHeader)) {
      sendJson(res, 421, { error: `unexpected Host header ${JSON.stringify(hostHeader)}` });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendJson(res, 405, { error: 'only GET' });
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      sendJson(res, 400, { error: 'bad request target' });
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      const refused = crossSite(req) ?? (url.pathname === '/api/fetch' && !hasToken(req) ? `no valid ${TOKEN_HEADER} header (only the tester page served by this run has it)` : undefined);
      if (refused) {
        sendJson(res, 403, { error: `refused: ${refused}` });
        return;
      }
      try {
        sendJson(res, 200, await api(url));
      } catch (err) {
        const status = err instanceof HttpError ? err.status : (err as { code?: string }).code === 'ERR_AUDIT_READ' ? 404 : err instanceof TypeError ? 400 : 500;
        sendJson(res, status, { error: (err as Error)?.message ?? String(err) });
      }
      return;
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'image/svg+xml', 'content-length': FAVICON.length, 'cache-control': 'max-age=86400' });
      res.end(req.method === 'HEAD' ? undefined : FAVICON);
      return;
    }
    const entry = FILES[url.pathname];
    if (!entry) {
      sendJson(res, 404, { error: `not found: ${url.pathname}` });
      return;
    }
    const body = assets.get(entry.file)!;
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': entry.type, 'content-length': body.length, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.requestTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  for (const name of ['127.0.0.1', 'localhost', '[::1]', bindHost.includes(':') ? `[${bindHost}]` : bindHost]) {
    allowedHosts.add(`${name}:${port}`);
  }
  const shown = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Why a request comes from another site, or undefined when it does not. Browsers send
 *  Sec-Fetch-Site (Fetch Metadata) and, on cross-origin requests, Origin; `same-site` is refused
 *  too, since another port on localhost is the same site. `none` is a person typing the URL. */
function crossSite(req: http.IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `a ${site} request (Sec-Fetch-Site)`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return `a request from another origin (${origin.slice(0, 200)})`;
  return undefined;
}

/** Names, sizes and modification times of DIR's audit files and their WALs. */
function auditSignature(dir: string): string {
  const parts: string[] = [];
  for (const f of auditFiles(dir)) {
    for (const name of [f, `${f}-wal`]) {
      try {
        const st = statSync(path.join(dir, name));
        parts.push(`${name}:${st.size}:${st.mtimeMs}`);
      } catch {
        // no WAL: nothing was written since the last checkpoint
      }
    }
  }
  return parts.join('|');
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

/** GET /api/fetch?url=: the robots.txt of that URL's origin, bytes as base64 (the page parses them). */
async function fetchForPage(target: string | undefined, options: ServeOptions): Promise<unknown> {
  if (!target) throw new HttpError(400, 'give ?url=');
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? target : `https://${target}`);
  } catch {
    throw new HttpError(400, `not a URL: ${target}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new HttpError(400, `only http and https URLs have a robots.txt (got ${parsed.protocol})`);
  const r = await fetchRobotsForTool(parsed.href, { resolve: options.resolve ?? [], timeoutMs: options.fetchTimeoutMs ?? 10_000 });
  return {
    robotsUrl: r.robotsUrl,
    finalUrl: r.finalUrl,
    status: r.status,
    kind: r.kind,
    bodyBase64: r.bytes ? r.bytes.toString('base64') : '',
    bytes: r.bytes?.length ?? 0,
    truncated: r.truncated ?? false,
    elapsedMs: r.durationMs,
    ...(r.error ? { error: `${r.robotsUrl}: ${r.status}: ${r.error}` } : {}),
  };
}
