// The fleet configuration: one Redis connection, the policy store and the rate limiter on it.
//
//   const stores = await createRedisStores('redis://127.0.0.1:6379', { run: 'crawl-42' });
//   const gate = new RobotsGate({ userAgent, ...stores });   // store and limiter, named as the gate's options
//
// Per-host rates are shared by everything on the same Redis and prefix (so two runs against one
// site still keep its interval together); with a run name, robots.txt records, override marks and
// the frontier are per run (`sharePolicies` shares the records across runs).
import { connectRedis, type RedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { RedisPolicyStore, type RedisPolicyStoreOptions } from './redis-policy-store.js';
import { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter.js';

export { RedisUnreachableError, RedisUrlError, redisChannel, type RedisStatusEvent } from './redis-connection.js';
export { RedisPolicyStore } from './redis-policy-store.js';
export { RedisRateLimiter } from './redis-rate-limiter.js';
export type { RedisConnection } from './redis-connection.js';

export interface RedisStoresOptions
  extends RedisConnectionOptions,
    Omit<RedisPolicyStoreOptions, 'prefix'>,
    Omit<RedisRateLimiterOptions, 'prefix'> {
  /** Prefix of every key, so several fleets (or runs) share one Redis apart. Default
   *  `robots-gate:`. Workers that must coordinate use the same prefix. */
  prefix?: string;
}

export interface RedisStores {
  store: RedisPolicyStore;
  limiter: RedisRateLimiter;
  /** The connection, for other fleet parts (the crawl's shared frontier) to reuse. */
  connection: RedisConnection;
  prefix: string;
  /** Close the connection (and the pub/sub one). */
  close(): Promise<void>;
}

/**
 * Connect to Redis at `url` and build the fleet's policy store and rate limiter on it. The
 * result's `store` and `limiter` are named as RobotsGate's options: `new RobotsGate({ userAgent,
 * ...stores })` shares both (the other fields are not enumerable, so a spread carries only these
 * two: RobotsGate refuses option names it does not have); a gate
 * given only `store` takes `store.limiter`, the same limiter, so each host's interval holds
 * across processes either way.
 * @throws RedisUrlError for a malformed URL; RedisUnreachableError (code
 *   `ERR_REDIS_UNREACHABLE`, names the URL) when Redis does not answer at start.
 */
export async function createRedisStores(url: string, options: RedisStoresOptions = {}): Promise<RedisStores> {
  const prefix = options.prefix ?? 'robots-gate:';
  const connection = await connectRedis(url, options);
  const limiter = new RedisRateLimiter(connection, { ...options, prefix });
  const stores = { store: new RedisPolicyStore(connection, { ...options, prefix, limiter }), limiter } as RedisStores;
  const hidden = (value: unknown) => ({ value, enumerable: false, writable: true, configurable: true });
  return Object.defineProperties(stores, {
    connection: hidden(connection),
    prefix: hidden(prefix),
    close: hidden(() => connection.close()),
  });
}
