// The crawl's --concurrency: requests in flight at most. A URL holds one of these slots from its
// check (which may send its host's robots.txt) to the end of its response; saving its document,
// writing its rows and telling the frontier come after, so the next request goes out meanwhile.
// Held to the end of all that, the slot sat a third of each URL's time in the save's round trip
// to the writer thread, and a fast crawl's main thread idled a fifth of its time.

/** A counting semaphore: `tryTake()` at once or `take()` in FIFO order, `give()` back. */
export class RequestSlots {
  private free: number;
  /** Callers waiting for a slot, oldest first: at most the URLs the frontier hands out beyond
   *  `size` (the CLI's holds twice as many), so a plain array. */
  private readonly waiters: (() => void)[] = [];

  /** @param size requests in flight at most (at least 1). */
  constructor(readonly size: number) {
    if (!(size >= 1)) throw new RangeError(`request slots must be at least 1, got ${size}`);
    this.free = size;
  }

  /** A slot now, when one is free and nobody waits for one; false otherwise (then take()). */
  tryTake(): boolean {
    if (this.free === 0 || this.waiters.length > 0) return false;
    this.free--;
    return true;
  }

  /** Resolves once a slot is this caller's (FIFO). */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Run `work` in a slot, taken first (FIFO) and given back when `work` calls `release` (its
   *  requests are over) or ends, whichever comes first. */
  async hold(work: (release: () => void) => Promise<void>): Promise<void> {
    if (!this.tryTake()) await this.take();
    let held = true;
    const release = () => {
      if (held) {
        held = false;
        this.give();
      }
    };
    try {
      await work(release);
    } finally {
      release();
    }
  }

  /** Give a slot back: to the longest waiter, else to the pool. */
  give(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.free++;
  }
}
