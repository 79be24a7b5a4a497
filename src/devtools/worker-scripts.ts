// Service worker (and shared worker) main scripts are fetched by the browser process for the
// registration, before the worker's own target runs and outside every page's Fetch interception
// (attributed to the registering page's frame all the same): a disallowed `/private/sw.js` reached
// its server. The browser-level session sees them paused as resource type `Other`, so it decides
// every `Other` request (one pattern, not every request); one a page's session decided too is
// recorded once (target-watch.ts). RFC 9309 §2.2.2 holds for a worker's script as for any URL.
import type { Channel } from '../browser/channel.js';
import type { Verdict } from '../browser/target-gate.js';
import type { TargetRequest } from './target-watch.js';

interface Paused {
  requestId: string;
  networkId?: string;
  frameId: string;
  resourceType: string;
  request: { url: string; method: string };
}

export interface WorkerScriptOptions {
  decide(url: string): Promise<Verdict>;
  record(entry: TargetRequest): void;
}

/** Starts deciding browser-side `Other` requests on the root session. */
export async function gateWorkerScripts(root: Channel, o: WorkerScriptOptions): Promise<void> {
  root.on('Fetch.requestPaused', (e: Paused) => {
    const url = e.request.url;
    if (!/^https?:/i.test(url)) {
      root.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
      return;
    }
    void o
      .decide(url)
      .then((v) => {
        const allowed = v.decision?.allowed === true;
        root
          .send(allowed ? 'Fetch.continueRequest' : 'Fetch.failRequest', allowed ? { requestId: e.requestId } : { requestId: e.requestId, errorReason: 'BlockedByClient' })
          .catch(() => {});
        o.record({
          url,
          method: e.request.method,
          resourceType: 'other',
          isNavigation: false,
          frameUrl: '',
          redirectedFrom: null,
          decision: v.decision,
          error: v.error,
          at: new Date().toISOString(),
          request: null,
          page: null,
          frameId: e.frameId,
          requestId: e.networkId ?? e.requestId,
          targetId: e.frameId,
        });
      })
      .catch(() => void root.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {}));
  });
  await root.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Other', requestStage: 'Request' }] });
}
