// The gate's parsed origins, bounded: the least recently used leave first once `max` are held.

interface Slot<V> {
  value: V;
  /** The insertion count when the slot last went to the back. */
  tick: number;
}

/**
 * A Map kept in insertion order, the front leaving when full. A get moves its slot to the back only
 * once the slot has drifted into the older half (more than max / 2 insertions since it last moved), so
 * a warm check costs one Map lookup; lru-cache's bookkeeping on every get was 8 % of a warm
 * `gate.check`. Approximate LRU: an origin asked at least once every max / 2 insertions never leaves
 * while half the cache is older than it.
 */
export class OriginCache<V> {
  readonly #slots = new Map<string, Slot<V>>();
  readonly #max: number;
  #tick = 0;
  /** The slot the last get found, and its key: a crawler asks one origin several times in a row, and
   *  the repeat is then a string comparison, not a Map lookup. Any set or clear forgets it. Between
   *  two sets the tick stands still, so a repeat could not have drifted: skipping the check is exact. */
  #lastKey: string | undefined = undefined;
  #lastSlot: Slot<V> | undefined = undefined;

  /** @param max origins held at most (a positive integer). */
  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): V | undefined {
    if (key === this.#lastKey) return this.#lastSlot!.value;
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    this.#lastKey = key;
    this.#lastSlot = slot;
    if (this.#tick - slot.tick > this.#max >> 1) {
      this.#slots.delete(key);
      slot.tick = ++this.#tick;
      this.#slots.set(key, slot);
    }
    return slot.value;
  }

  /** Like get, without counting as a use. */
  peek(key: string): V | undefined {
    return this.#slots.get(key)?.value;
  }

  set(key: string, value: V): void {
    this.#lastKey = undefined;
    this.#lastSlot = undefined;
    if (this.#slots.delete(key) === false && this.#slots.size >= this.#max) {
      this.#slots.delete(this.#slots.keys().next().value as string);
    }
    this.#slots.set(key, { value, tick: ++this.#tick });
  }

  clear(): void {
    this.#lastKey = undefined;
    this.#lastSlot = undefined;
    this.#slots.clear();
  }
}
