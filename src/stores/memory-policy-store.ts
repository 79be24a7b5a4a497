// The default PolicyStore: one process, bounded by an LRU. A fleet swaps in the Redis store.
import { LRUCache } from 'lru-cache';
import type { PolicyRecord, PolicyStore } from './types.js';

export interface MemoryPolicyStoreOptions {
  /** Origins kept at most; the least recently used go first. Default 10 000. */
  maxOrigins?: number;
}

/**
 * PolicyStore in this process's memory. `singleFlight` stores the loaded record before the waiters
 * get it (as a shared store must, so others can read it), and a loader that throws lets the next
 * caller try again. `leaseMs` has nothing to guard here: a loader cannot die without its process.
 */
export class MemoryPolicyStore implements PolicyStore {
  readonly #records: LRUCache<string, PolicyRecord>;
  readonly #flights = new Map<string, Promise<PolicyRecord>>();
  readonly #overrides = new Set<string>();

  constructor(options: MemoryPolicyStoreOptions = {}) {
    const max = options.maxOrigins ?? 10_000;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxOrigins must be a positive integer, got ${max}`);
    this.#records = new LRUCache({ max });
  }

  async get(origin: string): Promise<PolicyRecord | undefined> {
    return this.#records.get(origin);
  }

  async set(record: PolicyRecord): Promise<void> {
    this.#records.set(record.origin, record);
  }

  singleFlight(origin: string, load: () => Promise<PolicyRecord>, _leaseMs: number): Promise<PolicyRecord> {
    const inFlight = this.#flights.get(origin);
    if (inFlight) return inFlight;
    const flight = (async () => {
      try {
        const record = await load();
        this.#records.set(record.origin, record);
        return record;
      } finally {
        this.#flights.delete(origin);
      }
    })();
    this.#flights.set(origin, flight);
    return flight;
  }

  async markOverride(host: string): Promise<void> {
    this.#overrides.add(host.toLowerCase());
  }

  async isUnderOverride(host: string): Promise<boolean> {
    return this.#overrides.has(host.toLowerCase());
  }

  async close(): Promise<void> {
    this.#records.clear();
    this.#flights.clear();
  }
}
