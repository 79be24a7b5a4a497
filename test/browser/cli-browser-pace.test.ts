// `robots-gate crawl --browser` spaces every navigation, not only the page's first request: each
// redirect target by its own host's interval (a hop back to the crawl's own host too), and a
// rendered page's frames by their hosts' (a host being crawled, the page's own). Gaps measured at
// the server: from the end of one response to the arrival of the next request to that host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { deleteKeys } from '../stores/redis-test-keys.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { site, startVirtualHosts, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';

let hosts: VirtualHosts;
let dir: string;
let port = 0;
const ROBOTS = 'User-agent: *\nAllow: /\n';

beforeAll(async () => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-cli-browser-pace-'));
  const redirect = (to: (p: string) => string | undefined) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const target = to(req.url ?? '/');
    if (target !== undefined) return void res.writeHead(302, { location: target }).end();
    site(ROBOTS)(req, res);
  };
  hosts = await startVirtualHosts({
    // /r1 -> /r2 -> /r3 (a page), all on one host.
    'chain.test': redirect((p) => (p === '/r1' ? '/r2' : p === '/r2' ? '/r3' : undefined)),
    // /go -> another host's page.
    'hop.test': redirect((p) => (p === '/go' ? `http://target.test:${port}/landing` : undefined)),
    'target.test': site(ROBOTS),
    // A page framing two pages of a host being crawled and one of its own host.
    'frames.test': site(ROBOTS, (p) =>
      p === '/frames'
        ? `<!doctype html><h1>frames</h1><iframe src="http://crawled.test:${port}/f1"></iframe><iframe src="http://crawled.test:${port}/f2"></iframe><iframe src="/inner"></iframe>`
        : undefined,
    ),
    'crawled.test': site(ROBOTS),
    // The same, on its own host, for a fleet run; its script marks the page as rendered.
    'fleet.test': site(ROBOTS, (p) =>
      p === '/frames' ? `<!doctype html><h1>fleet</h1><iframe src="/inner"></iframe><script>document.body.dataset.rendered = 'yes'</script>` : undefined,
    ),
  });
  port = hosts.port;
});
afterAll(async () => {
  await hosts?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function crawl(name: string, urls: string[], minIntervalMs: number, extra: string[] = []): Promise<string> {
  const list = path.join(dir, `${name}.txt`);
  fs.writeFileSync(list, urls.join('\n') + '\n');
  const out = path.join(dir, name);
  const res = await runCli(
    ['crawl', list, '--user-agent', 'RenderBot/1.0', '--out', out, '--min-interval', String(minIntervalMs), '--browser', ...extra, ...hosts.resolve.flatMap((r) => ['--resolve', r])],
    { timeoutMs: 90_000 },
  );
  expect(res.stderr).not.toMatch(/Error/);
  expect(res.code).toBe(0);
  return out;
}

/** Each request to `host` after the first: [path, ms since the previous response ended]. */
function gaps(host: string): Array<[string, number]> {
  const seen: LoggedRequest[] = [...hosts.requests(host)].sort((a, b) => a.startedAt - b.startedAt);
  return seen.slice(1).map((r, i) => [r.path, r.startedAt - seen[i]!.endedAt!]);
}

/** Clock slack between the server's stamps and the limiter's (ms). */
const SLACK_MS = 5;

test('crawl --browser: each hop of a same-host redirect chain waits the interval', async () => {
  const out = await crawl('chain', [`http://chain.test:${port}/r1`], 700);
  const g = gaps('chain.test');
  expect(g.map(([p]) => p)).toEqual(['/r1', '/r2', '/r3']);
  for (const [, ms] of g) expect(ms).toBeGreaterThanOrEqual(700 - SLACK_MS);
  // The chain's end was rendered and saved.
  expect(fs.readFileSync(path.join(out, `chain.test_${port}`, 'r3'), 'utf8')).toContain('page /r3');
}, 120_000);

test('crawl --browser: a redirect into a host requested just before waits that host\'s interval', async () => {
  await crawl('hop', [`http://target.test:${port}/first`, `http://hop.test:${port}/go`], 1_500);
  const g = gaps('target.test');
  expect(g.map(([p]) => p)).toEqual(['/first', '/landing']);
  for (const [, ms] of g) expect(ms).toBeGreaterThanOrEqual(1_500 - SLACK_MS);
}, 120_000);

test('crawl --browser: frames into a host being crawled, and into the page\'s own host, wait their interval; the page still renders', async () => {
  const out = await crawl('frames', [`http://crawled.test:${port}/one`, `http://crawled.test:${port}/two`, `http://frames.test:${port}/frames`], 700);
  const crawled = gaps('crawled.test');
  expect(crawled.map(([p]) => p).sort()).toEqual(['/f1', '/f2', '/one', '/two']);
  for (const [, ms] of crawled) expect(ms).toBeGreaterThanOrEqual(700 - SLACK_MS);
  // The frame on the page's own host waits for the crawl's slot no longer than the page's end.
  const own = gaps('frames.test');
  expect(own.map(([p]) => p)).toEqual(['/frames', '/inner']);
  for (const [, ms] of own) expect(ms).toBeGreaterThanOrEqual(700 - SLACK_MS);
  const html = fs.readFileSync(path.join(out, `frames.test_${port}`, 'frames'), 'utf8');
  expect(html).toContain('<h1>frames</h1>');
}, 120_000);

test("crawl --browser in a fleet: a frame on the page's own host goes under the crawl's lease, spaced, and the page renders", async () => {
  const run = `browser-pace-${randomBytes(4).toString('hex')}`;
  try {
    const out = await crawl('fleet', [`http://fleet.test:${port}/frames`], 700, ['--redis', process.env.REDIS_URL!, '--run', run, '--worker', 'w1']);
    const own = gaps('fleet.test');
    expect(own.map(([p]) => p)).toEqual(['/frames', '/inner']);
    for (const [, ms] of own) expect(ms).toBeGreaterThanOrEqual(700 - SLACK_MS);
    // Rendered (its script ran): the frame did not wait for the lease until the page timed out.
    expect(fs.readFileSync(path.join(out, `fleet.test_${port}`, 'frames'), 'utf8')).toContain('data-rendered="yes"');
  } finally {
    await deleteKeys(`robots-gate:run:${run}:`);
    await deleteKeys(`robots-gate:*fleet.test:${port}`);
  }
}, 120_000);
