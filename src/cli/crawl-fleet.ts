// --redis: the shared frontier, policy store and rate limiter of a fleet run.
import { createRedisFrontier } from '../crawl/redis-frontier.js';
import type { Frontier, FrontierOptions } from '../politeness/types.js';
import type { PolicyStore, RateLimiter } from '../stores/types.js';

export interface Fleet {
  frontier: Frontier;
  store: PolicyStore;
  limiter: RateLimiter;
  claimSitemap: (sitemapUrl: string) => Promise<boolean>;
  close(): Promise<void>;
}

/**
 * With `--redis`: the policy store from stores/redis and the shared frontier of crawl/redis-frontier,
 * so this worker shares robots.txt copies, per-host rate and the URL list with the rest of the run
 * (robots.txt copies with other runs too when `sharePolicies`).
 * ioredis is loaded only here. @throws RedisUnreachableError / RedisUrlError (clear messages).
 */
export async function openFleet(
  url: string,
  run: string,
  worker: string,
  options: FrontierOptions,
  say: (s: string) => void,
  sharePolicies = false,
): Promise<Fleet> {
  const { createRedisStores } = await import('../stores/redis.js');
  // robots.txt copies and override marks last for this run (each run fetches robots.txt at its
  // own run time, through its own --resolve), unless sharePolicies; per-host rates are shared
  // Redis-wide. A lost Redis is said on stderr: requests wait for it (a local fallback would
  // multiply the rate).
  const stores = await createRedisStores(url, {
    run,
    sharePolicies,
    onStatus: (e) =>
      say(
        e.state === 'lost'
          ? `Redis at ${e.url} is not answering (${e.error}): no request is sent until it is back; retrying`
          : `Redis at ${e.url} is back after ${((e.downMs ?? 0) / 1000).toFixed(1)} s: carrying on`,
      ),
  });
  const frontier = createRedisFrontier(stores.connection, { ...options, run, worker, prefix: stores.prefix });
  const sitemapsKey = `${stores.prefix}run:${run}:sitemaps`;
  return {
    frontier,
    store: stores.store,
    limiter: stores.limiter,
    // Each sitemap is read once per run, fleet-wide: whoever adds it to the run's set reads it.
    claimSitemap: (url) => stores.connection.run((c) => c.sadd(sitemapsKey, url)).then((n) => n === 1),
    close: async () => {
      await frontier.close();
      await stores.close();
    },
  };
}
