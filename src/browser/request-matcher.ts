// Pairs a DevTools-paused request with Playwright's Request object for it (by method and URL, in
// order), so each entry can hand the caller the object it knows (`response()`, `failure()`).
// Playwright may report a request before the pause (navigations) or only after it was let go
// (subresources), so both sides wait for the other briefly. One matcher listens to one page
// event: `request` (every request: Playwright then sends each to this process, so it is listened
// to only while someone wants allowed requests) or `requestfailed` (blocked ones: rare, cheap).
import type { Request } from 'playwright-core';

/** What the matcher needs of a request: Playwright's and Puppeteer's fit. */
export interface RequestLike {
  method(): string;
  url(): string;
}

/** A page that reports its requests (Playwright's, Puppeteer's). */
export interface RequestEmitter<R> {
  on(event: 'request' | 'requestfailed', listener: (request: R) => void): unknown;
  off(event: 'request' | 'requestfailed', listener: (request: R) => void): unknown;
}

/** Unclaimed requests kept at most; older ones are dropped (they were never paused by us). */
const MAX_KEPT = 2_000;

export class RequestMatcher<R extends RequestLike = Request> {
  private readonly arrived = new Map<string, R[]>();
  private readonly waiting = new Map<string, Array<(r: R | null) => void>>();
  private size = 0;

  constructor(
    private readonly page: RequestEmitter<R>,
    private readonly event: 'request' | 'requestfailed',
  ) {
    page.on(event, this.onRequest);
  }

  private readonly onRequest = (request: R): void => {
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
  take(method: string, url: string): R | null {
    const key = `${method} ${url}`;
    const list = this.arrived.get(key);
    if (!list?.length) return null;
    const request = list.shift()!;
    if (!list.length) this.arrived.delete(key);
    this.size--;
    return request;
  }

  /** Playwright's request for `method url`, waiting up to `ms` for it; null if it never comes. */
  wait(method: string, url: string, ms: number): Promise<R | null> {
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
      const done = (r: R | null) => {
        clearTimeout(timer);
        resolve(r);
      };
      const list = this.waiting.get(key);
      if (list) list.push(done);
      else this.waiting.set(key, [done]);
    });
  }

  stop(): void {
    this.page.off(this.event, this.onRequest);
    for (const list of this.waiting.values()) for (const done of list) done(null);
    this.waiting.clear();
    this.arrived.clear();
    this.size = 0;
  }
}
