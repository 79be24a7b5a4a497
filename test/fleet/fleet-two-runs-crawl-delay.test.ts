// Two `robots-gate crawl --redis` runs (each its own --run, so each fetches its own robots.txt)
// on one host with a Crawl-delay: the second run's robots.txt request, sent under its floor
// because it cannot know the Crawl-delay before it has the file, still waits the Crawl-delay
// after the first run's page. Gaps measured at the server, a response's end to the next start.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';
import { startWorker, type Fleet } from './fleet-harness.js';

const CD_MS = 1_500;
const FLOOR_MS = 100;
const tag = `rcd${process.pid}`;
const HOST = `cd.${tag}.test`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let hosts: VirtualHosts;
let dir: string;
const runs = [`${tag}-a-${Date.now()}`, `${tag}-b-${Date.now()}`];

beforeAll(async () => {
  hosts = await startVirtualHosts({ [HOST]: site(`User-agent: *\nCrawl-delay: ${CD_MS / 1000}\n`) });
  dir = mkdtempSync(join(tmpdir(), 'rg-fleet-two-runs-'));
});
afterAll(async () => {
  await hosts?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const p of [...runs.map((r) => `robots-gate:run:${r}:`), `robots-gate:*.${tag}.test:`]) await deleteKeys(p);
});

function fleet(run: string, paths: string[]): Fleet {
  const listFile = join(dir, `${run}.txt`);
  writeFileSync(listFile, paths.map((p) => `${hosts.origin(HOST)}${p}`).join('\n') + '\n');
  const own = mkdtempSync(join(dir, 'run-'));
  return { listFile, dir: own, run, hosts } as unknown as Fleet;
}

it("a second run's robots.txt waits the Crawl-delay the first run's page was sent under", async () => {
  const extra = ['--min-interval', String(FLOOR_MS)];
  const a = startWorker(fleet(runs[0]!, ['/a1', '/a2']), redisUrl(), 'a', {}, 60_000, extra);
  // The second run starts once the first one's first page has ended.
  for (let i = 0; i < 400 && !hosts.requests(HOST, '/a1').some((r) => r.endedAt !== undefined); i++) await sleep(25);
  const b = startWorker(fleet(runs[1]!, ['/b1']), redisUrl(), 'b', {}, 60_000, extra);
  for (const w of [a, b]) expect(await w.exit, w.stderr()).toEqual({ code: 0, signal: null });

  const log = hosts.requests(HOST).slice().sort((x, y) => x.startedAt - y.startedAt);
  expect(log.filter((r) => r.path === '/robots.txt')).toHaveLength(2);
  const second = log.findIndex((r, i) => r.path === '/robots.txt' && i > 0);
  // The case at hand: run b's robots.txt right after one of run a's pages.
  expect(log[second - 1]!.path).toMatch(/^\/a\d$/);
  const gaps = log.slice(1).map((r, i) => ({ after: log[i]!.path, path: r.path, gap: r.startedAt - log[i]!.endedAt! }));
  // After a page (sent under the Crawl-delay its run knew), whatever comes next waits it; after
  // a robots.txt request (sent under a floor), at least the floor. 1 ms of clock slack.
  for (const g of gaps) expect(g.gap, JSON.stringify(gaps)).toBeGreaterThanOrEqual((g.after === '/robots.txt' ? FLOOR_MS : CD_MS) - 1);
}, 90_000);
