// Long runs of work that settles in microtasks alone (decisions from a cached policy, rows kept in
// memory) starve the event loop: no socket is read and no timer fires until they end. A host whose
// robots.txt disallowed all of its 200,000 queued URLs held the loop for 3 s while they were
// recorded, and other hosts' robots.txt requests timed out unread (those hosts then counted
// unreachable, everything there disallowed).

/** Counts steps of such a run: due() is true once every `every` steps. */
export class LoopTurns {
  #n = 0;
  constructor(private readonly every: number) {}

  /** Count a step; true when the caller should give the event loop a turn (`await nextTurn()`). */
  due(): boolean {
    if (++this.#n < this.every) return false;
    this.#n = 0;
    return true;
  }
}

/** Resolves after the event loop's next turn: timers and I/O run first. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Steps between two turns: about 2 to 5 ms of rows and decisions on this machine. */
export const STEPS_PER_TURN = 128;
