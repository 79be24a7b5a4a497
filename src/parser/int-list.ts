// A growable list of 32-bit integers: 4 bytes an entry, where a JS array of numbers costs 8.
// The parse records every rule in three of these, so a 30,000-rule file stays small in memory.

export class IntList {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  get(index: number): number {
    return this.data[index]!;
  }

  /** Drop the spare capacity once no more values will be pushed. */
  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length);
  }
}
