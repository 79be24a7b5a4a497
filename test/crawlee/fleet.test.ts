// Two gated Crawlee crawlers, each with its own gate and its own Redis connection (as two
// processes would have), crawling one host together: its Crawl-delay holds across both, because
// both take the host's slot from the same Redis limiter. Real Redis, real loopback server.
import { afterAll, expect, test } from 'vitest';
import { CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { createRedisStores } from '../../src/stores/redis.js';
import { gateCrawler } from '../../src/crawlee/index.js';
import { site, startVirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl, uniquePrefix } from '../stores/redis-test-keys.js';

log.setLevel(LogLevel.ERROR);
const H = '127.0.0.1';
const UA = 'CrawleeFleetBot/1.0 (+https://example.test/bot)';
const prefix = uniquePrefix('crawlee-fleet');
afterAll(() => deleteKeys(prefix));

test("two crawlers on one Redis limiter keep a host's Crawl-delay between them (gaps at the server)", async () => {
  const server = await startVirtualHosts({ [H]: site('User-agent: *\nCrawl-delay: 0.3\n') });
  const stores = await Promise.all([createRedisStores(redisUrl(), { prefix }), createRedisStores(redisUrl(), { prefix })]);
  const gates = stores.map((s) => new RobotsGate({ userAgent: UA, limiter: s.limiter, minIntervalMs: 0 }));
  try {
    const crawlers = gates.map((gate) => {
      const crawler = new CheerioCrawler(
        { maxConcurrency: 10, requestHandler: async () => {} },
        new Configuration({ persistStorage: false, purgeOnStart: true }),
      );
      gateCrawler(crawler, gate);
      return crawler;
    });
    await Promise.all(crawlers.map((c, w) => c.run([...Array(4).keys()].map((i) => `${server.origin(H)}/w${w}/p${i}.html`))));
    const sent = server.requests(H).sort((a, b) => a.startedAt - b.startedAt);
    expect(sent.filter((r) => r.path !== '/robots.txt')).toHaveLength(8);
    // Every page request waited the Crawl-delay after the host's previous response, whichever
    // crawler (or robots.txt request) that was.
    for (let i = 1; i < sent.length; i++) {
      if (sent[i]!.path !== '/robots.txt') expect(sent[i]!.startedAt - sent[i - 1]!.endedAt!).toBeGreaterThanOrEqual(300 - 2);
    }
  } finally {
    await Promise.all(gates.map((g) => g.close()));
    await Promise.all(stores.map((s) => s.close()));
    await server.close();
  }
});
