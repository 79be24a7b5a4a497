// A 429/503 back-off holds the host until Retry-After has passed, once: the request after the
// retry keeps the host's interval again. The crawl asked the limiter for the back-off's length as
// the retry's interval, and the limiter keeps the interval a lease was granted under for the
// host's next request too (so that what its holder knew is not lost): the page after the retry
// waited a second back-off (an hour after a Retry-After: 3600). Gaps are measured at the server.
// The same with --redis: the fleet's frontier and limiter share one host hash, and it kept the
// retry's interval there too.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-backoff-next-');
const run = `backoff-next-${process.pid}-${Date.now()}`;
const ports: number[] = [];
afterAll(async () => {
  await deleteKeys(`robots-gate:run:${run}:`);
  for (const port of ports) await deleteKeys(`robots-gate:*next.test:${port}`);
});
const modes: [string, () => string[]][] = [
  ['in memory', () => []],
  ['with --redis', () => ['--redis', redisUrl(), '--run', run]],
];

describe.each(modes)('crawl %s: after a back-off, the host\'s interval again', (_mode, extra) => {
  it('Retry-After: 5 on /p1: the retry comes 5 s on, /p2 and /p3 a floor after it, not another 5 s', async () => {
    let answered = false;
    const v = await hosts({
      'b.next.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        if (req.url === '/p1' && !answered) {
          answered = true;
          return void res.writeHead(429, { 'retry-after': '5' }).end('slow down');
        }
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
      },
    });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    ports.push(v.port);
    fs.writeFileSync(list, ['/p1', '/p2', '/p3'].map((p) => `${v.origin('b.next.test')}${p}`).join('\n') + '\n');
    const r = await runCli(['crawl', list, '--user-agent', 'TestBot/1.0', '--out', path.join(dir, 'out'), '--min-interval', '300', ...resolveArgs(v), ...extra()], { timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(0);
    const log = v.requests('b.next.test');
    expect(log.map((x) => x.path)).toEqual(['/robots.txt', '/p1', '/p1', '/p2', '/p3']);
    const gaps = log.slice(1).map((x, i) => x.startedAt - log[i]!.endedAt!);
    expect(gaps[1], 'gap from the 429 to its retry').toBeGreaterThanOrEqual(5000);
    // The floor, not the back-off again (the unfixed crawl: 5 s or more before /p2).
    for (const i of [2, 3]) {
      expect(gaps[i], `gap before ${log[i + 1]!.path}`).toBeGreaterThanOrEqual(300);
      expect(gaps[i], `gap before ${log[i + 1]!.path}`).toBeLessThan(5000);
    }
  }, 60_000);
});
