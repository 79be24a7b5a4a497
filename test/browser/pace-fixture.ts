// Two loopback hosts (each its own server on 127.0.0.1, so each its own politeness key) that ask
// for Crawl-delay: 1, for the navigation pacing tests of every browser door. The servers' logs
// stamp when each request arrived and when its response ended: gaps are measured there.
import { expect } from 'vitest';
import { startVirtualHosts, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';

const H = '127.0.0.1';
/** Crawl-delay: 1 (s), the interval each host asks for. */
export const INTERVAL_MS = 1_000;
/** A gate's `defaultBackoffMs` for /busy-bare (a 503 without Retry-After): far from the 10 s default. */
export const BARE_BACKOFF_MS = 1_500;
/** The `Retry-After` of /busy (ms). */
export const RETRY_AFTER_MS = 3_000;
/** How long (ms) /download takes to send its attachment: longer than the interval. */
export const DOWNLOAD_MS = 1_800;
/** How long /streaming's HTML takes to arrive whole (ms). */
export const STREAM_MS = 1_500;
/** Clock slack between the server's stamps and the limiter's (both this process's, rounded). */
export const SLACK_MS = 5;

export interface PacedHosts {
  a: VirtualHosts;
  b: VirtualHosts;
  url(s: VirtualHosts, path: string): string;
  /** The requests `s` saw for `path`, in arrival order. */
  hits(s: VirtualHosts, path: string): LoggedRequest[];
  close(): Promise<void>;
}

function host(redirectTo?: () => string) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n');
    if (path === '/go' && redirectTo) return void res.writeHead(302, { location: redirectTo() }).end();
    // Busy: come back in 3 s (Retry-After, seconds), with a page saying so.
    if (path === '/busy') return void res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '3' }).end('<!doctype html><p>busy</p>');
    // Busy without saying for how long: the gate's defaultBackoffMs applies.
    if (path === '/busy-bare') return void res.writeHead(503, { 'content-type': 'text/html' }).end('<!doctype html><p>busy</p>');
    // A same-host iframe: its document waits for the host's slot that the page's own holds.
    if (path === '/framed') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>framed</title><iframe src="/inner"></iframe>');
    // An attachment sent slowly: the navigation becomes a download that outlasts the interval.
    if (path === '/download') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="d.bin"', 'content-length': String(3 * 1024) });
      let sent = 0;
      const timer = setInterval(() => {
        res.write(Buffer.alloc(1024));
        if (++sent === 3) {
          clearInterval(timer);
          res.end();
        }
      }, DOWNLOAD_MS / 3);
      res.once('close', () => clearInterval(timer));
      return;
    }
    // A page that navigates itself while its HTML still arrives (the rest comes STREAM_MS later).
    if (path === '/streaming') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(`<!doctype html><title>streaming</title><script>setTimeout(() => { location.href = '/after'; }, 100)</script><p>${' '.repeat(2048)}`);
      const timer = setTimeout(() => res.end('<p>the end</p>'), STREAM_MS);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    // No content: the navigation commits no document.
    if (path === '/empty') return void res.writeHead(204).end();
    // A stylesheet and an image from the host itself: subresources are counted, not spaced.
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${path}</title><link rel="stylesheet" href="/s.css"><img src="/i.png"><p>${path}</p>`);
  };
}

export async function startPacedHosts(): Promise<PacedHosts> {
  const b = await startVirtualHosts({ [H]: host() });
  const a = await startVirtualHosts({ [H]: host(() => `${b.origin(H)}/landing`) });
  return {
    a,
    b,
    url: (s, path) => `${s.origin(H)}${path}`,
    hits: (s, path) => s.requests(H, path),
    close: async () => {
      await Promise.all([a.close(), b.close()]);
    },
  };
}

/** ms from the end of `before`'s response to the arrival of `after`, at the server. */
export function gap(before: LoggedRequest | undefined, after: LoggedRequest | undefined): number {
  if (!before?.endedAt || !after) throw new Error(`missing request: ${JSON.stringify({ before, after })}`);
  return after.startedAt - before.endedAt;
}

/** /download's request at a's server, once its response has ended there; throws when it has not
 *  ended by twice its length, or was cut short. */
export async function downloaded(h: PacedHosts): Promise<LoggedRequest> {
  const until = Date.now() + 2 * DOWNLOAD_MS;
  for (;;) {
    const d = h.hits(h.a, '/download')[0];
    if (d?.endedAt !== undefined) {
      if (d.endedAt - d.startedAt < DOWNLOAD_MS - 100) throw new Error(`/download ended early: ${JSON.stringify(d)}`);
      return d;
    }
    if (Date.now() > until) throw new Error(`/download did not end: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `g` (ms) kept the interval, and no more than the interval needs: the host was not held until a
 *  later event or the 60 s backstop. */
export function expectOneInterval(g: number): void {
  expect(g).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  expect(g).toBeLessThan(1.8 * INTERVAL_MS);
}

/** /two, after /busy-bare's 503 without Retry-After, waited the gate's defaultBackoffMs
 *  (BARE_BACKOFF_MS), not the 10 s default. */
export function expectBareBackoff(h: PacedHosts): void {
  const g = gap(h.hits(h.a, '/busy-bare')[0], h.hits(h.a, '/two')[0]);
  expect(g).toBeGreaterThanOrEqual(BARE_BACKOFF_MS - SLACK_MS);
  expect(g).toBeLessThan(BARE_BACKOFF_MS + 0.8 * INTERVAL_MS);
}
