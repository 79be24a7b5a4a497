// The crawl's slot on a host for one URL, which the transport may give back early: a rendered
// page's navigations take their hosts' slots themselves, the document's own host included, so
// the browser transport returns this one when the document's response has ended. The host's
// interval still counts from the page's last request to it (its own subresources are not
// spaced): that end is moved on the limiter once the page is done.
import type { Pacer, Slot } from '../politeness/pacer.js';
import type { Lease } from '../stores/types.js';

export class HeldSlot {
  #releasedAt: number | undefined;

  constructor(
    private readonly slot: Slot,
    private readonly pacer: Pacer,
    private readonly host: string,
    private readonly url: string,
    /** The frontier's lease when it is the limiter's own (a fleet's): the move goes under it. */
    private readonly within: Lease | undefined,
  ) {}

  /** Give the slot back now, its response ended at `endedAt` (ms since epoch); once. */
  readonly releaseEarly = (endedAt: number): Promise<void> => {
    if (this.#releasedAt !== undefined) return Promise.resolve();
    this.#releasedAt = endedAt;
    return this.slot.release(endedAt);
  };

  /**
   * The host's last response for this URL ended at `endedAt`; `notBefore`: a 429/503 back-off.
   * Released early: the end is moved under a slot with no interval to wait, which waits only for
   * a navigation to the host in flight. Interrupted meanwhile: the frontier keeps the interval.
   */
  async end(endedAt: number, notBefore: number | undefined, signal: AbortSignal | undefined): Promise<void> {
    if (this.#releasedAt === undefined) {
      this.#releasedAt = endedAt;
      return this.slot.release(endedAt, notBefore);
    }
    if (endedAt <= this.#releasedAt && notBefore === undefined) return;
    try {
      // endOnly: this sends nothing, so it neither waits the host's interval nor replaces the
      // one its last holder knew (see RateLimiter).
      const s = await this.pacer.take(this.host, { ms: 0, reason: 'floor' }, signal, this.url, this.within, { endOnly: true });
      await s.release(endedAt, notBefore);
    } catch {
      // Interrupted, or the limiter gone: nothing more is sent to the host under this URL.
    }
  }
}
