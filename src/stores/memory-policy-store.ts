// The default PolicyStore: one process, bounded by an LRU. A fleet swaps in the Redis store.
import { LRUCache } from 'lru-cache';
import type { PolicyRecord, PolicyStore } from './types.js';

/** A record as kept: its body as UTF-8 octets when that is the smaller form (see pack). */
type Kept = PolicyRecord | (Omit<PolicyRecord, 'body'> & { readonly utf8: Uint8Array });

/** A character V8 cannot hold in a one-byte string. */
const WIDE = /[^\u0000-\u00ff]/;
/** Below this, a typed array's own objects cost more than the second byte of each character. */
const PACK_FROM = 256;
const encoder = new TextEncoder();
// ignoreBOM: a body keeps its byte-order mark, as the fetch kept it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A text with one character past U+00FF (a comment's `–`, a Cyrillic path) is a two-byte string in
 * V8, 2 bytes a character, where its UTF-8 octets take about 1 for robots.txt's mostly ASCII text:
 * such a body is kept as octets and decoded again on get() (a miss, off the hot path). A text that
 * is not well-formed UTF-16 (a lone surrogate) would not survive UTF-8: it is kept as it is.
 */
function pack(record: PolicyRecord): Kept {
  const body = record.body;
  if (body === undefined || body.length < PACK_FROM || !WIDE.test(body) || !(body as unknown as { isWellFormed(): boolean }).isWellFormed()) return record;
  const { body: _body, ...rest } = record;
  return { ...rest, utf8: encoder.encode(body) };
}

function unpack(kept: Kept): PolicyRecord {
  if (!('utf8' in kept)) return kept;
  const { utf8, ...rest } = kept;
  return { ...rest, body: decoder.decode(utf8) };
}

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
  readonly #records: LRUCache<string, Kept>;
  readonly #flights = new Map<string, Promise<PolicyRecord>>();
  readonly #overrides = new Set<string>();

  constructor(options: MemoryPolicyStoreOptions = {}) {
    const max = options.maxOrigins ?? 10_000;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxOrigins must be a positive integer, got ${max}`);
    this.#records = new LRUCache({ max });
  }

  async get(origin: string): Promise<PolicyRecord | undefined> {
    const kept = this.#records.get(origin);
    return kept === undefined ? undefined : unpack(kept);
  }

  async set(record: PolicyRecord): Promise<void> {
    this.#records.set(record.origin, pack(record));
  }

  singleFlight(origin: string, load: () => Promise<PolicyRecord>, _leaseMs: number): Promise<PolicyRecord> {
    const inFlight = this.#flights.get(origin);
    if (inFlight) return inFlight;
    const flight = (async () => {
      try {
        const record = await load();
        this.#records.set(record.origin, pack(record));
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
