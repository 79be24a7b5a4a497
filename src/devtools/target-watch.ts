// The gate's hold on the browser: its root session auto-attaches to every target (every page of
// every context, popups, shared and service workers) with `waitForDebuggerOnStart`, so each new
// target waits, before its first request, until the gate's own session on it has Fetch enabled
// (src/browser/target-gate.ts, which also gates the target's iframes and dedicated workers). A
// client's own auto-attach holds the target too; it runs once both let it go. A worker's main
// script is fetched before its target exists, and a shared worker's first requests can miss its
// own session's interception: worker-scripts.ts decides those at the browser level.
// A created target's first navigation is not held either: create-target.ts sends it only once
// `held()` says the gate intercepts.
// RFC 9309 §2.2.2 holds for every URL requested, whoever asked for it.
import type { Channel } from '../browser/channel.js';
import type { NavigationPace } from '../browser/navigation-pace.js';
import { gateTarget, type DriverPage, type DriverRequest, type Verdict } from '../browser/target-gate.js';
import type { GatedRequest } from '../browser/types.js';
import type { Upstream } from './upstream.js';
import { watchResponses, type ResponseSeen } from './responses.js';
import { BrowserLevelGate } from './worker-scripts.js';

/** A GatedRequest with the target whose session decided it (a page, or a worker of its own).
 *  No driver runs here: `request` and `page` are always null. */
export interface TargetRequest extends GatedRequest<DriverRequest, DriverPage> {
  /** DevTools' targetId of the page (or worker) the request belongs to. */
  readonly targetId: string;
}

export interface WatchOptions {
  decide(url: string): Promise<Verdict>;
  /** The verdict without I/O (a warm origin), or undefined: `decide` is asked then. */
  decideNow?: ((url: string) => Verdict | undefined) | undefined;
  record(entry: TargetRequest): void;
  /** Set on every request let through; the browser sends it anyway (its --user-agent). */
  userAgent: string | undefined;
  /** When set, each target's responses are read too (responses.ts). */
  response?: (r: ResponseSeen) => void;
  /** Navigations wait for their host's slot (robots-gate/browser's pacing); undefined: not spaced. */
  pace?: NavigationPace | undefined;
}

interface AttachedToTarget {
  sessionId: string;
  targetInfo: { targetId: string; type: string; url: string };
  waitingForDebugger: boolean;
}

interface Held {
  promise: Promise<string>;
  settled: boolean;
  settle(v: string | Error): void;
}

/** Published when a target could not be gated and was closed (fail closed). */
export interface UngatableTarget {
  readonly targetId: string;
  readonly type: string;
  readonly error: Error;
}

export class TargetWatch {
  /** Recent requests recorded (requestId + URL): the root and a target's session may both decide one. */
  private readonly recorded = new Set<string>();
  /** The gate's own sessions, by session id: no client may address them. */
  readonly sessions = new Set<string>();
  /** Targets by id → the gate's session on it, once that session intercepts (create-target.ts waits on it). */
  private readonly gated = new Map<string, Held>();
  private readonly targetOfSession = new Map<string, string>();
  private readonly sharedWorkerSessions = new Set<string>();
  private browserLevel: BrowserLevelGate | null = null;
  /** Aborted when the gate's session on a target detaches (the target closed, the browser gone). */
  private readonly lifetimes = new Map<string, AbortController>();

  constructor(
    private readonly upstream: Upstream,
    private readonly o: WatchOptions,
    private readonly onUngatable: (t: UngatableTarget) => void = () => {},
  ) {}

  /** Starts holding and gating every target, those already open included. */
  async start(): Promise<void> {
    const root = this.upstream.root();
    root.on('Target.attachedToTarget', (e: AttachedToTarget) => void this.onAttached(e));
    root.on('Target.detachedFromTarget', (e: { sessionId: string }) => {
      this.sessions.delete(e.sessionId);
      this.lifetimes.get(e.sessionId)?.abort(new Error('target detached'));
      this.lifetimes.delete(e.sessionId);
      const targetId = this.targetOfSession.get(e.sessionId);
      this.targetOfSession.delete(e.sessionId);
      if (targetId !== undefined) this.settle(targetId, new Error(`target ${targetId} detached before the gate held it`));
      if (targetId !== undefined) this.gated.delete(targetId);
      if (targetId !== undefined && this.sharedWorkerSessions.delete(e.sessionId)) this.browserLevel?.sharedWorkerGone(targetId);
    });
    this.browserLevel = new BrowserLevelGate(root, { decide: this.o.decide, decideNow: this.o.decideNow, record: (entry) => this.record(entry) });
    await this.browserLevel.start();
    await root.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  }

  private async onAttached(e: AttachedToTarget): Promise<void> {
    const { targetId, type } = e.targetInfo;
    // A client's browser session, or a session a client asked for: not a target to hold.
    if (type === 'browser' || this.upstream.ownerOf(e.sessionId)) return;
    this.sessions.add(e.sessionId);
    this.targetOfSession.set(e.sessionId, targetId);
    const channel: Channel = this.upstream.session(e.sessionId);
    const frames = new Map([[targetId, e.targetInfo.url]]);
    const lifetime = new AbortController();
    this.lifetimes.set(e.sessionId, lifetime);
    try {
      if (type === 'shared_worker') {
        this.sharedWorkerSessions.add(e.sessionId);
        await this.browserLevel!.sharedWorkerStarting(targetId);
      }
      // Before the target runs, so that its first response is seen; a target without Network
      // (none known) is still gated, its rows without a status.
      const responses = this.o.response ? watchResponses(channel, targetId, this.o.response).catch(() => {}) : undefined;
      // Never stopped: the gate holds each target until it closes (or the browser ends).
      await gateTarget<DriverRequest, DriverPage>(channel, {
        decide: this.o.decide,
        decideNow: this.o.decideNow,
        record: (entry) => this.record({ ...entry, targetId }),
        disposed: () => false,
        userAgent: this.o.userAgent,
        page: () => null,
        requests: () => null,
        frames,
        documentsElsewhere: false,
        pace: this.o.pace,
        closed: lifetime.signal,
      });
      await responses;
      this.settle(targetId, e.sessionId);
      await channel.send('Runtime.runIfWaitingForDebugger').catch(() => {});
    } catch (err) {
      // Fail closed: a target the gate cannot intercept never runs.
      const error = err instanceof Error ? err : new Error(String(err));
      this.settle(targetId, error);
      this.onUngatable({ targetId, type, error });
      await this.upstream.call('Target.closeTarget', { targetId }).catch(() => {});
    }
  }

  /**
   * A client asked to close `targetId` (Target.closeTarget, /json/close): its navigations waiting
   * for a host's slot give up now, not when Chromium reports the detach (on a loaded machine that
   * may come after the slot opened, and the navigation of a closing page would be sent).
   */
  closing(targetId: string): void {
    for (const [sessionId, t] of this.targetOfSession) if (t === targetId) this.lifetimes.get(sessionId)?.abort(new Error('target closing'));
  }

  /**
   * Resolves with the gate's session on `targetId` once its Fetch interception is on.
   * @throws (rejects) Error when the target could not be gated, detached first, or was not
   *  attached within `timeoutMs` ms.
   */
  held(targetId: string, timeoutMs = 10_000): Promise<string> {
    const held = this.entry(targetId);
    if (held.settled) return held.promise;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.gated.delete(targetId);
        reject(new Error(`the gate did not attach to target ${targetId} within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    return Promise.race([held.promise, late]).finally(() => clearTimeout(timer));
  }

  private entry(targetId: string): Held {
    let held = this.gated.get(targetId);
    if (!held) {
      let settle!: (v: string | Error) => void;
      const promise = new Promise<string>((resolve, reject) => {
        settle = (v) => (typeof v === 'string' ? resolve(v) : reject(v));
      });
      promise.catch(() => {});
      held = { promise, settled: false, settle };
      this.gated.set(targetId, held);
    }
    return held;
  }

  private settle(targetId: string, v: string | Error): void {
    const held = this.entry(targetId);
    if (held.settled) return;
    held.settled = true;
    held.settle(v);
  }

  /** Entries decided and answered, for `o.record` once the answers are written (see record). */
  private readonly unrecorded: TargetRequest[] = [];

  private record(entry: TargetRequest): void {
    if (entry.requestId !== undefined) {
      const key = `${entry.requestId} ${entry.url}`;
      if (this.recorded.has(key)) return;
      this.recorded.add(key);
      if (this.recorded.size > 1_000) this.recorded.delete(this.recorded.values().next().value!);
    }
    // The answer to Chromium is queued and goes to the pipe at the end of this tick; the events,
    // audit rows and Robots.requestBlocked of the entry wait for it, not it for them.
    if (this.unrecorded.push(entry) === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    for (const entry of this.unrecorded.splice(0)) this.o.record(entry);
  }
}
