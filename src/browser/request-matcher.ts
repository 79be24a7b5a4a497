// Pairs a DevTools-paused request with Playwright's Request object for it (by method and URL, in
// order), so each entry can hand the caller the object it knows (`response()`, `failure()`).
// Playwright may report a request before the pause (navigations) or only after it was let go
// (subresources), so both sides wait for the other briefly. One matcher listens to one page
// event: `request` (every request: Playwright then sends each to this process, so it is listened
// to only while someone wants allowed requests) or `requestfailed` (blocked ones: rare, cheap).
import type { Page, Request } from 'playwright-core';

/** Unclaimed requests kept at most; older ones are dropped (they were never paused by us). */
const MAX_KEPT = 2_000;

export class RequestMatcher {
  private readonly arrived = new Map<string, Request[]>();
  private readonly waiting = new Map<string, Array<(r: Request | null) => void>>();
  private size = 0;

  constructor(
    private readonly page: Page,
    private readonly event: 'request' | 'requestfailed',
  ) {
    if (event === 'request') page.on('request', this.onRequest);
    else page.on('requestfailed', this.onRequest);
  }

  private readonly onRequest = (request: Request): void => {
    const key = `${request.method()} ${request.url()}`;
    const waiters = this.waiting.get(key);
    if (waiters?.length) {
      waiters.shift()!(request);
      if (!waiters.length) this.waiting.delete(key);
      return;
    }
    if (this.size >= MAX_KEPT) this.dropOldest();
    const list = this.arrived.get(key);
    if (list) list.push(request);
    else this.arrived.set(key, [request]);
    this.size++;
  };

  private dropOldest(): void {
    const [key, list] = this.arrived.entries().next().value!;
    list.shift();
    if (!list.length) this.arrived.delete(key);
    this.size--;
  }

  /** Playwright's request for `method url` if it was reported already; null otherwise. */
  take(method: string, url: string): Request | null {
    const key = `${method} ${url}`;
    const list = this.arrived.get(key);
    if (!list?.length) return null;
    const request = list.shift()!;
    if (!list.length) this.arrived.delete(key);
    this.size--;
    return request;
  }

  /** Playwright's request for `method url`, waiting up to `ms` for it; null if it never comes. */
  wait(method: string, url: string, ms: number): Promise<Request | null> {
    const now = this.take(method, url);
    if (now) return Promise.resolve(now);
    const key = `${method} ${url}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const list = this.waiting.get(key);
        const i = list?.indexOf(done) ?? -1;
        if (i >= 0) list!.splice(i, 1);
        if (list && !list.length) this.waiting.delete(key);
        resolve(null);
      }, ms);
      timer.unref?.();
      const done = (r: Request | null) => {
        clearTimeout(timer);
        resolve(r);
      };
      const list = this.waiting.get(key);
      if (list) list.push(done);
      else this.waiting.set(key, [done]);
    });
  }

  stop(): void {
    if (this.event === 'request') this.page.off('request', this.onRequest);
    else this.page.off('requestfailed', this.onRequest);
    for (const list of this.waiting.values()) for (const done of list) done(null);
    this.waiting.clear();
    this.arrived.clear();
    this.size = 0;
  }
}
