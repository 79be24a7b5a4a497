// The gate's browser-level Fetch interception, for what no target's own session can hold:
// - Service worker (and shared worker) main scripts are fetched by the browser process for the
//   registration, before the worker's own target runs and outside every page's Fetch interception
//   (attributed to the registering page's frame all the same): a disallowed `/private/sw.js` reached
//   its server. The browser-level session sees them paused as resource type `Other`, so it decides
//   every `Other` request (one pattern, not every request).
// - A shared worker's own requests go through URL loaders Chromium made for it when it started. A
//   worker whose script comes at once (a `blob:` URL) can be given them before the gate's session
//   on it has Fetch enabled; Chromium then pushes intercepting ones to the worker, but that push is
//   not ordered with `Runtime.runIfWaitingForDebugger`, and the worker's first fetch() was seen to
//   leave ungated (5 runs of 6). The browser-level interception wraps every loader from the start,
//   so while a shared worker lives this session pauses every request, not only `Other`: a request
//   the worker's own session missed is decided here. Pages without shared workers never pay for it.
// A request a target's session decided too is recorded once (target-watch.ts).
// RFC 9309 §2.2.2 holds for a worker's script and requests as for any URL.
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
  /** The verdict without I/O, or undefined (see TargetGateOptions.decideNow). */
  decideNow?: ((url: string) => Verdict | undefined) | undefined;
  record(entry: TargetRequest): void;
}

const NARROW = [{ urlPattern: '*', resourceType: 'Other', requestStage: 'Request' }];
const WIDE = [{ urlPattern: '*', requestStage: 'Request' }];

export class BrowserLevelGate {
  /** Shared workers alive (target ids): while any is, every request pauses here. */
  private readonly sharedWorkers = new Set<string>();
  /** The patterns last asked for, in order: Fetch.enable replaces them. */
  private patterns: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly root: Channel,
    private readonly o: WorkerScriptOptions,
  ) {}

  /** Whether every request, not only `Other`, pauses here (a target's session may have decided it already). */
  get wide(): boolean {
    return this.sharedWorkers.size > 0;
  }

  /** Starts deciding browser-side `Other` requests on the root session. */
  async start(): Promise<void> {
    this.root.on('Fetch.requestPaused', (e: Paused) => this.onPaused(e));
    await this.root.send('Fetch.enable', { patterns: NARROW });
  }

  /**
   * A shared worker attached (held, not yet running): resolves once every request pauses here.
   * @throws (rejects) when the browser refuses the patterns: the worker must not run.
   */
  sharedWorkerStarting(targetId: string): Promise<void> {
    const was = this.wide;
    this.sharedWorkers.add(targetId);
    return was ? this.patterns.then(() => {}) : this.setPatterns(WIDE);
  }

  /** A shared worker's target is gone. */
  sharedWorkerGone(targetId: string): void {
    if (!this.sharedWorkers.delete(targetId) || this.wide) return;
    void this.setPatterns(NARROW).catch(() => {});
  }

  private setPatterns(patterns: object[]): Promise<void> {
    const sent = this.patterns.catch(() => {}).then(() => this.root.send('Fetch.enable', { patterns }));
    this.patterns = sent;
    return sent.then(() => {});
  }

  private onPaused(e: Paused): void {
    const url = e.request.url;
    if (!/^https?:/i.test(url)) {
      this.root.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
      return;
    }
    const answer = (v: Verdict): void => {
      const allowed = v.decision?.allowed === true;
      this.root
        .send(allowed ? 'Fetch.continueRequest' : 'Fetch.failRequest', allowed ? { requestId: e.requestId } : { requestId: e.requestId, errorReason: 'BlockedByClient' })
        .catch(() => {});
      this.o.record({
        url,
        method: e.request.method,
        resourceType: e.resourceType.toLowerCase(),
        isNavigation: e.resourceType === 'Document',
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
    };
    const fail = (): void => void this.root.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
    const now = this.o.decideNow?.(url);
    if (now === undefined) return void this.o.decide(url).then(answer).catch(fail);
    try {
      answer(now);
    } catch {
      fail();
    }
  }
}
