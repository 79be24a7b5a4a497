// Redirect hops of subresources. Playwright routes only the first request of a redirect chain and
// lets the browser follow the rest unseen; navigations are therefore fetched hop by hop
// (navigation.ts), but a script or image that redirects would still leave ungated. In Chromium a
// DevTools session of our own can pause those hops: each request the page's target makes pauses
// here too (after or before Playwright's interception: Chromium chains them), first hops go on at
// once (the route decided them), and a hop with `redirectedRequestId` is put to the gate before it
// is sent. RFC 9309 §2.2.2 governs every URL requested, wherever the request came from.
import type { CDPSession, Page } from 'playwright-core';
import type { Decision } from '../gate/types.js';

export interface RedirectHop {
  readonly url: string;
  readonly from: string | null;
  readonly method: string;
  readonly resourceType: string;
}

/** Decides a hop (and reports it); anything but an allowed decision fails the request. */
export type HopDecider = (hop: RedirectHop) => Promise<Decision | null>;

interface RequestPaused {
  requestId: string;
  networkId?: string;
  redirectedRequestId?: string;
  resourceType: string;
  request: { url: string; method: string };
}

/**
 * Starts guarding `page`'s redirect hops. Resolves to a stop function; resolves to null where
 * DevTools sessions are not available (a browser other than Chromium): there only the first hop
 * of a subresource is gated.
 */
export async function guardRedirects(page: Page, decide: HopDecider): Promise<(() => Promise<void>) | null> {
  let session: CDPSession;
  try {
    session = await page.context().newCDPSession(page);
  } catch {
    return null;
  }
  // networkId → the URL of the chain's latest hop, to name where a redirect came from.
  const last = new Map<string, string>();
  const onPaused = (e: RequestPaused): void => {
    const key = e.networkId ?? e.requestId;
    const url = e.request.url;
    const from = last.get(key) ?? null;
    last.set(key, url);
    if (last.size > 10_000) last.delete(last.keys().next().value!);
    if (!e.redirectedRequestId || !/^https?:/i.test(url)) {
      session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
      return;
    }
    decide({ url, from, method: e.request.method, resourceType: e.resourceType.toLowerCase() })
      .catch(() => null)
      .then((d) =>
        d?.allowed
          ? session.send('Fetch.continueRequest', { requestId: e.requestId })
          : session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }),
      )
      .catch(() => {}); // the page or the request went away meanwhile
  };
  session.on('Fetch.requestPaused', onPaused as (e: unknown) => void);
  try {
    await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  } catch {
    await session.detach().catch(() => {});
    return null;
  }
  return async () => {
    session.off('Fetch.requestPaused', onPaused as (e: unknown) => void);
    await session.send('Fetch.disable').catch(() => {});
    await session.detach().catch(() => {});
  };
}
