// The crawl's --concurrency: requests in flight at most. A URL holds one of these slots from its
// check (which may send its host's robots.txt) to the end of its response; saving its document,
// writing its rows and telling the frontier come after, so the next request goes out meanwhile.
// Held to the end of all that, the slot sat a third of each URL's time in the save's round trip
// to the writer thread, and a fast crawl's main thread idled a fifth of its time.

/** A counting semaphore: `tryTake()` at once or `take()` in FIFO order, `give()` back. */
export class RequestSlots {
  private free: number;
  private readonly waiters: (() => void)[] = [];
  private head = 0;

  /** @param size requests in flight at most (at least 1). */
  constructor(readonly size: number) {
    if (!(size >= 1)) throw new RangeError(`request slots must be at least 1, got ${size}`);
    this.free = size;
  }

  /** A slot now, when one is free and nobody waits for one; false otherwise (then take()). */
  tryTake(): boolean {
    if (this.free === 0 || this.head < this.waiters.length) return false;
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
    if (this.head < this.waiters.length) {
      const next = this.waiters[this.head]!;
      this.waiters[this.head++] = undefined as never;
      // Compact now and then, so a long crawl's waiter list does not grow without end.
      if (this.head > 1_024 && this.head * 2 > this.waiters.length) {
        this.waiters.splice(0, this.head);
        this.head = 0;
      }
      next();
      return;
    }
    this.free++;
  }
}
