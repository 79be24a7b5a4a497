// A host's first URL is taken when its slot opens under the floor; its check then fetches the
// robots.txt and learns a Crawl-delay, so the page's slot opens a Crawl-delay after that request.
// The worker waited that out in the limiter, holding one of the --concurrency slots: with one
// slot and three Crawl-delay hosts listed first, the healthy hosts behind them sent nothing until
// every Crawl-delay host had had its first page. Fixed, the URL goes back to its host's queue and
// the worker takes the next host. Measured at the server: the order of the requests (not their
// timings), each Crawl-delay host's gaps (still at least its Crawl-delay), and the audit's rows.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { deleteKeys } from '../stores/redis-test-keys.js';

const UA = 'TestBot/1.0';
const DELAY_S = 3;
const { tmp, hosts, resolveArgs } = crawlFixture('rg-cd-slots-');
const slow = ['cd1.test', 'cd2.test', 'cd3.test'];
const healthy = ['ok1.test', 'ok2.test'];

function list(v: VirtualHosts): string {
  return [
    ...slow.flatMap((h) => ['/a', '/b'].map((p) => `${v.origin(h)}${p}`)),
    ...healthy.flatMap((h) => ['/a', '/b', '/c'].map((p) => `${v.origin(h)}${p}`)),
  ].join('\n') + '\n';
}

async function crawl(extra: string[]): Promise<{ v: VirtualHosts; out: string }> {
  const map: Record<string, ReturnType<typeof site>> = {};
  for (const h of slow) map[h] = site(`User-agent: *\nCrawl-delay: ${DELAY_S}\nAllow: /\n`);
  for (const h of healthy) map[h] = site('User-agent: *\nAllow: /\n');
  const v = await hosts(map);
  const out = path.join(tmp(), 'out');
  const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '0', '--concurrency', '1', ...resolveArgs(v), ...extra], {
    stdin: list(v),
    timeoutMs: 60_000,
  });
  expect(r.code, r.stderr).toBe(0);
  return { v, out };
}

function check(v: VirtualHosts, out: string): void {
  const pages = (h: string) => v.requests(h).filter((r) => r.path !== '/robots.txt');
  // Every page once, each host's robots.txt once.
  for (const h of slow) expect(v.requests(h).map((r) => r.path), h).toEqual(['/robots.txt', '/a', '/b']);
  for (const h of healthy) expect(v.requests(h).map((r) => r.path), h).toEqual(['/robots.txt', '/a', '/b', '/c']);
  // The order: every healthy page before any Crawl-delay host's first page.
  const lastHealthy = Math.max(...healthy.flatMap(pages).map((r) => v.log.indexOf(r)));
  const firstSlow = Math.min(...slow.flatMap(pages).map((r) => v.log.indexOf(r)));
  expect(lastHealthy, v.log.map((r) => `${r.host}${r.path}`).join(' ')).toBeLessThan(firstSlow);
  // The limiter is still the floor: each Crawl-delay host's gaps, robots.txt to /a included.
  for (const h of slow) {
    const rs: LoggedRequest[] = v.requests(h);
    for (let i = 1; i < rs.length; i++) {
      expect(rs[i]!.startedAt - rs[i - 1]!.endedAt!, `${h} ${rs[i - 1]!.path} -> ${rs[i]!.path}`).toBeGreaterThanOrEqual(DELAY_S * 1000);
    }
  }
  // One row per page, tried once, its wait said to be the Crawl-delay; the robots.txt request
  // is no page row.
  const audit = openAudit(out);
  try {
    const rows = audit.attempts();
    for (const h of slow) {
      const mine = rows.filter((r) => r.host === `${h}:${v.port}`);
      expect(mine.map((r) => [new URL(r.url).pathname, r.outcome, r.attempt]), h).toEqual([
        ['/a', 'fetched', 1],
        ['/b', 'fetched', 1],
      ]);
      expect(mine[1]!.waitReason, `${h} /b`).toBe('crawl-delay');
    }
    for (const h of healthy) expect(rows.filter((r) => r.host === `${h}:${v.port}`).map((r) => r.outcome), h).toEqual(['fetched', 'fetched', 'fetched']);
  } finally {
    audit.close();
  }
}

describe('crawl: a Crawl-delay learned at the first check holds no concurrency slot', () => {
  it('--concurrency 1, three Crawl-delay hosts listed first: the healthy hosts are crawled while they wait', async () => {
    const { v, out } = await crawl([]);
    check(v, out);
  }, 60_000);

  it('the same over a Redis frontier (--redis --run)', async () => {
    const run = `cdslots-${randomBytes(4).toString('hex')}`;
    let v: VirtualHosts | undefined;
    try {
      const r = await crawl(['--redis', process.env.REDIS_URL!, '--run', run, '--worker', 'w1']);
      v = r.v;
      check(r.v, r.out);
    } finally {
      await deleteKeys(`robots-gate:run:${run}:`);
      if (v) for (const h of [...slow, ...healthy]) await deleteKeys(`robots-gate:*${h}:${v.port}`);
    }
  }, 60_000);
});
