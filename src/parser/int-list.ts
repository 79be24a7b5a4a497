// A list of 32-bit integers, filled during the parse and then frozen into an Int32Array: 4 bytes an
// entry once frozen, where a JS array of numbers costs 8, and one allocation for the whole list (a
// growing typed array reallocates at every doubling; a small file's parse paid more for that than for
// reading its lines). The parse records every rule in three of these.

const EMPTY = new Int32Array(0);

export class IntList {
  private pending: number[] | null = null;
  private data: Int32Array = EMPTY;
  length = 0;

  push(value: number): void {
    (this.pending ??= []).push(value);
    this.length++;
  }

  /** Only after trim(). */
  get(index: number): number {
    return this.data[index]!;
  }

  /** Freeze: no more values will be pushed. */
  trim(): void {
    if (this.pending === null) return;
    this.data = new Int32Array(this.pending);
    this.pending = null;
  }
}
