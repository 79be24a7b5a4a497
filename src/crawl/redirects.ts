// Redirect targets a crawl schedules as requests of their own: where each came from (its row's
// parent), how many hops deep it is (the chain stops at maxRedirects), and putting a target on
// the origin just decided to the cached policy at once. Apart from the job: only 3xx answers
// reach here, and the job only asks how an item came to be.
import type { AttemptRow } from '../audit/types.js';
import type { Frontier, TakenItem } from '../politeness/types.js';
import type { Lease } from '../stores/types.js';
import type { AttemptLog } from './attempt-log.js';
import type { CrawlGate } from './types.js';

export class Redirects {
  /** Redirect targets scheduled: where each came from, and how many hops deep. */
  private readonly targets = new Map<string, { parent: string; depth: number }>();

  constructor(
    private readonly frontier: Frontier,
    private readonly gate: CrawlGate,
    private readonly log: AttemptLog,
    private readonly maxRedirects: number,
    /** The lease `t`'s requests go under (a fleet's frontier), see CrawlJob.under. */
    private readonly under: (t: TakenItem) => { lease: Lease } | undefined,
    /** URLs earlier runs settled: a redirect into one is not sent again (see CrawlJobOptions). */
    private readonly settled?: ReadonlySet<string>,
  ) {}

  /** Targets may be scheduled by other workers (a fleet's frontier records them): ask it. */
  get shared(): boolean {
    return this.frontier.redirectOf !== undefined;
  }

  get size(): number {
    return this.targets.size;
  }

  /** Learn how `url`, just taken, came to be when another worker of the fleet scheduled it. */
  async learn(url: string): Promise<void> {
    if (!this.shared || this.targets.has(url)) return;
    const via = await this.frontier.redirectOf!(url);
    if (via !== undefined) this.targets.set(url, { parent: via.parent, depth: via.depth });
  }

  /** How many hops deep `url` is: 0 for a URL of the list. */
  depth(url: string): number {
    return this.targets.get(url)?.depth ?? 0;
  }

  /** How a frontier item came to be: from the list (`page`) or as a redirect target. */
  via(url: string): { kind: AttemptRow['kind']; parentUrl: string | null } {
    const r = this.targets.get(url);
    return r ? { kind: 'redirect', parentUrl: r.parent } : { kind: 'page', parentUrl: null };
  }

  /** `leased`: the item whose 3xx this is, its host still leased to us (so no other take can
   *  hand the target out while it is decided here). */
  async schedule(from: string, target: string, depth: number, leased?: TakenItem): Promise<void> {
    if (depth > this.maxRedirects) return; // the 3xx row is the record; the chain stops here
    let u: URL;
    try {
      u = new URL(target);
    } catch {
      return;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
    u.hash = '';
    // A Location with user:password@ would fail in fetch (it refuses credentials in a URL) and
    // put them in the row: the target is requested, and recorded, without them.
    u.username = '';
    u.password = '';
    const href = u.href;
    if (this.targets.has(href) || this.settled?.has(href)) return;
    // In a fleet the target may be taken by another worker: it learns parent and depth from here,
    // recorded before the URL is queued so no take can come first.
    const noted = (await this.frontier.noteRedirect?.(href, { parent: from, depth })) ?? false;
    const added = await this.frontier.add([{ url: href, host: u.host }]);
    if (added === 0) {
      // Already in the list (or fetched): it is, or was, a request of its own.
      if (noted) await this.frontier.forgetRedirect?.(href);
      return;
    }
    this.targets.set(href, { parent: from, depth });
    this.log.host(u.host).remaining++;
    // A target on the origin just decided is decided now from the cached policy: a disallowed one
    // sends nothing, so it must not wait out the host's interval in the queue to be marked blocked.
    if (leased && u.origin === safeOrigin(from)) {
      const at = Date.now();
      const d = await this.gate.check(href, this.under(leased));
      if (d.allowed) return;
      this.log.write({ url: href, host: u.host, kind: 'redirect', parentUrl: from, startMs: at, endMs: Date.now(), decision: d, outcome: 'blocked', final: true, attempt: 1 });
      await this.frontier.remove(u.host, [href]);
    }
  }
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
