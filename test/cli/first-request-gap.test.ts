// The robots.txt request is a request the site sees: the crawl's first page request to a host
// keeps the host's interval after it, as every later request keeps it after the one before.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-first-');

describe('the first request to a host', () => {
  it.each([
    ['the floor (--min-interval)', 'User-agent: *\nDisallow: /private\n', ['--min-interval', '800'], 800, 'floor'],
    ['a Crawl-delay', 'User-agent: *\nCrawl-delay: 0.8\n', ['--min-interval', '0'], 800, 'crawl-delay'],
    ['the floor, when robots.txt is missing (404)', null, ['--min-interval', '800'], 800, 'floor'],
  ])('waits %s after the robots.txt request, and its row says so', async (_what, robots, flags, intervalMs, reason) => {
    const v = await hosts({ 'a.test': site(robots) });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, `${v.origin('a.test')}/page\n`);
    const r = await runCli(['crawl', list, '--user-agent', 'TestBot/1.0', '--out', path.join(dir, 'out'), ...flags, ...resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);
    const robotsReq = v.requests('a.test', '/robots.txt');
    const page = v.requests('a.test', '/page');
    expect(robotsReq).toHaveLength(1);
    expect(page).toHaveLength(1);
    // Measured at the server, from the end of the robots.txt response to the page request.
    expect(page[0]!.startedAt - robotsReq[0]!.endedAt!).toBeGreaterThanOrEqual(intervalMs - 5);
    // The audit proves it: the page's row names the interval it was sent under (it had none).
    const audit = await runCli(['audit', path.join(dir, 'out'), '--host', 'a.test:' + v.port, '--json']);
    const row = audit.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((x) => x.url?.endsWith('/page'));
    expect({ intervalMs: row.intervalMs, waitReason: row.waitReason }).toEqual({ intervalMs, waitReason: reason });
  });
});
