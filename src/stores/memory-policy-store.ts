// The default PolicyStore: one process, bounded by an LRU. A fleet swaps in the Redis store.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { PolicyRecord, PolicyStore } from './types.js';

/** A record as kept: its body packed (see pack) as UTF-8 octets, deflated when `deflated`. */
type Kept = PolicyRecord | (Omit<PolicyRecord, 'body'> & { readonly packed: Buffer; readonly deflated: boolean });

/** A character V8 cannot hold in a one-byte string. */
const WIDE = /[^\u0000-\u00ff]/;
/** From this many characters a body is deflated: below, the Buffer's own objects and the CPU cost
 *  more than the bytes saved, and most origins serve small files. */
const DEFLATE_FROM = 4096;
/** From this many characters a two-byte body is kept as UTF-8 octets (see pack). */
const UTF8_FROM = 256;

/**
 * A cached origin must cost little more than its body (a broad crawl caches 100,000). A body from
 * 4 KiB is kept deflated (level 1: robots.txt text shrinks to about a fifth, for about 16 µs of CPU
 * a KiB on the loaded build machine, once per fetch; inflated again on get(), a miss, off the hot
 * path). A smaller text with one
 * character past U+00FF (a comment's `–`) is a two-byte string in V8, 2 bytes a character, where its
 * UTF-8 octets take about 1: it is kept as octets. A text that is not well-formed UTF-16 (a lone
 * surrogate) would not survive UTF-8: it is kept as it is.
 */
function pack(record: PolicyRecord): Kept {
  const body = record.body;
  if (body === undefined || body.length < UTF8_FROM) return record;
  const deflated = body.length >= DEFLATE_FROM;
  if (!deflated && !WIDE.test(body)) return record;
  if (!(body as unknown as { isWellFormed(): boolean }).isWellFormed()) return record;
  const { body: _body, ...rest } = record;
  const octets = Buffer.from(body, 'utf8');
  // A copy: zlib hands back a view of its 16 KiB output chunk, which would stay alive with it.
  return { ...rest, packed: deflated ? Buffer.from(deflateRawSync(octets, { level: 1 })) : octets, deflated };
}

function unpack(kept: Kept): PolicyRecord {
  if (!('packed' in kept)) return kept;
  const { packed, deflated, ...rest } = kept;
  // toString('utf8') keeps a byte-order mark, as the fetch kept it.
  return { ...rest, body: (deflated ? inflateRawSync(packed) : packed).toString('utf8') };
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
