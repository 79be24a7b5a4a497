// Intervals and timeouts past Node's longest timer (2^31 - 1 ms): a longer setTimeout fires after
// 1 ms, so a huge Crawl-delay or --min-interval became a busy loop and a huge --timeout an
// immediate failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttemptRows } from '../helpers/attempt-rows.js';
import { CrawlJob } from '../../src/crawl/crawl-job.js';
import { HttpTransport } from '../../src/crawl/http-transport.js';
import { RobotsGate } from '../../src/gate/gate.js';
import { MemoryFrontier } from '../../src/politeness/memory-frontier.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-timers-'));
let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({ 'slow.test': site('User-agent: *\nAllow: /\n') });
});
afterAll(async () => {
  await v.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
});

describe('waits longer than a Node timer', () => {
  it('a crawl job waiting weeks for a host sleeps, it does not spin', async () => {
    process.on('warning', onWarning);
    const gate = new RobotsGate({ userAgent: 'T', resolve: v.resolve });
    const frontier = new MemoryFrontier({ minIntervalMs: 1e12, concurrency: 4 });
    let takes = 0;
    const take = frontier.take.bind(frontier);
    frontier.take = (...a: Parameters<typeof take>) => (takes++, take(...a));
    const ac = new AbortController();
    const audit = new AttemptRows();
    const job = new CrawlJob({ gate, frontier, transport: new HttpTransport({ gate }), audit, outDir: dir, runId: 't', signal: ac.signal });
    const urls = ['/a', '/b'].map((p) => ({ url: `${v.origin('slow.test')}${p}`, host: `slow.test:${v.port}` }));
    await frontier.add(urls);
    job.expect(urls, 1e12);
    const running = job.run();
    await new Promise((r) => setTimeout(r, 500));
    ac.abort();
    const result = await running;
    await gate.close();
    expect(result.status).toBe('interrupted');
    // robots.txt counts toward the floor: even the first URL waits its 1e12 ms after it.
    expect(audit.rows.filter((r) => r.status === 200)).toHaveLength(0);
    expect(v.requests('slow.test').map((r) => r.path)).toEqual(['/robots.txt']);
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
    expect(takes).toBeLessThan(10);
  });

  it('the CLI refuses such values as bad usage (exit 2), not a run of failures or a hang', async () => {
    assertBuilt();
    for (const opt of [['--timeout', '1e12'], ['--min-interval', '1e12'], ['--max-crawl-delay', '1e308'], ['--progress-interval', '1e12'], ['--concurrency', '2.5']]) {
      const r = await runCli(['crawl', '-', '--user-agent', 'T', '--out', path.join(dir, 'o'), ...opt], { stdin: 'http://a.test/\n' });
      expect(r.code, opt.join(' ')).toBe(2);
      expect(r.stderr, opt.join(' ')).toMatch(new RegExp(`${opt[0]} must be`));
    }
  });
});
