// The gate's hold on the browser: its root session auto-attaches to every target (every page of
// every context, popups, shared and service workers) with `waitForDebuggerOnStart`, so each new
// target waits, before its first request, until the gate's own session on it has Fetch enabled
// (src/browser/target-gate.ts, which also gates the target's iframes and dedicated workers). A
// client's own auto-attach holds the target too; it runs once both let it go. A worker's main
// script is fetched before its target exists: worker-scripts.ts decides it at the browser level.
// RFC 9309 §2.2.2 holds for every URL requested, whoever asked for it.
import type { Channel } from '../browser/channel.js';
import { gateTarget, type DriverPage, type DriverRequest, type Verdict } from '../browser/target-gate.js';
import type { GatedRequest } from '../browser/types.js';
import type { Upstream } from './upstream.js';
import { gateWorkerScripts } from './worker-scripts.js';

/** A GatedRequest with the target whose session decided it (a page, or a worker of its own).
 *  No driver runs here: `request` and `page` are always null. */
export interface TargetRequest extends GatedRequest<DriverRequest, DriverPage> {
  /** DevTools' targetId of the page (or worker) the request belongs to. */
  readonly targetId: string;
}

export interface WatchOptions {
  decide(url: string): Promise<Verdict>;
  record(entry: TargetRequest): void;
  /** Set on every request let through; the browser sends it anyway (its --user-agent). */
  userAgent: string | undefined;
}

interface AttachedToTarget {
  sessionId: string;
  targetInfo: { targetId: string; type: string; url: string };
  waitingForDebugger: boolean;
}

/** Published when a target could not be gated and was closed (fail closed). */
export interface UngatableTarget {
  readonly targetId: string;
  readonly type: string;
  readonly error: Error;
}

export class TargetWatch {
  /** Recent `Other` requests recorded (requestId + URL): the root and a page session may both decide one. */
  private readonly recorded = new Set<string>();
  /** The gate's own sessions, by session id: no client may address them. */
  readonly sessions = new Set<string>();

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
    });
    await gateWorkerScripts(root, { decide: this.o.decide, record: (entry) => this.record(entry) });
    await root.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  }

  private async onAttached(e: AttachedToTarget): Promise<void> {
    const { targetId, type } = e.targetInfo;
    // A client's browser session, or a session a client asked for: not a target to hold.
    if (type === 'browser' || this.upstream.ownerOf(e.sessionId)) return;
    this.sessions.add(e.sessionId);
    const channel: Channel = this.upstream.session(e.sessionId);
    const frames = new Map([[targetId, e.targetInfo.url]]);
    try {
      // Never stopped: the gate holds each target until it closes (or the browser ends).
      await gateTarget<DriverRequest, DriverPage>(channel, {
        decide: this.o.decide,
        record: (entry) => this.record({ ...entry, targetId }),
        disposed: () => false,
        userAgent: this.o.userAgent,
        page: () => null,
        requests: () => null,
        frames,
        documentsElsewhere: false,
      });
      await channel.send('Runtime.runIfWaitingForDebugger').catch(() => {});
    } catch (err) {
      // Fail closed: a target the gate cannot intercept never runs.
      this.onUngatable({ targetId, type, error: err instanceof Error ? err : new Error(String(err)) });
      await this.upstream.call('Target.closeTarget', { targetId }).catch(() => {});
    }
  }

  private record(entry: TargetRequest): void {
    if (entry.resourceType === 'other' && entry.requestId !== undefined) {
      const key = `${entry.requestId} ${entry.url}`;
      if (this.recorded.has(key)) return;
      this.recorded.add(key);
      if (this.recorded.size > 1_000) this.recorded.delete(this.recorded.values().next().value!);
    }
    this.o.record(entry);
  }
}
