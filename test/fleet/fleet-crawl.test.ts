// Four `robots-gate crawl --redis` workers share 400 URLs over 8 hosts; the servers' own log is
// the judge: each allowed URL once, no disallowed URL, each robots.txt once, and per host no
// two request starts closer than its Crawl-delay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeys, redisUrl } from '../stores/redis-test-keys.js';
import { join } from 'node:path';
import { auditRows, pageCounts, robotsFetches, runCli, shortGaps, startFleet, startWorker, TOTAL_URLS, type Fleet } from './fleet-harness.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet('four');
});
afterAll(async () => {
  await fleet?.close();
  for (const pattern of fleet?.keyPatterns ?? []) await deleteKeys(pattern);
});

describe('a fleet of four workers', () => {
  it('fetches every allowed URL exactly once, keeps every host interval, and fetches each robots.txt once', async () => {
    expect(fleet.urls).toHaveLength(TOTAL_URLS);
    const workers = ['w1', 'w2', 'w3', 'w4'].map((w) => startWorker(fleet, redisUrl(), w));
    const exits = await Promise.all(workers.map((w) => w.exit));
    for (const [i, e] of exits.entries()) expect(e, workers[i]!.stderr()).toEqual({ code: 0, signal: null });
    // Each worker's last progress line counts its own share, not the others' URLs as undone.
    for (const w of workers) expect(w.stderr()).toMatch(new RegExp(`progress: this worker settled \\d+ URLs? of the run's ${TOTAL_URLS}, \\d+ blocked \\(final\\)`));

    const counts = pageCounts(fleet);
    const missing = [...fleet.allowed].filter((u) => counts.get(u) !== 1);
    expect(missing, 'allowed URLs not fetched exactly once').toEqual([]);
    expect([...counts.keys()].filter((u) => !fleet.allowed.has(u)), 'disallowed URLs that reached a server').toEqual([]);
    expect(shortGaps(fleet)).toEqual([]);
    expect([...robotsFetches(fleet).values()]).toEqual(fleet.names.map(() => 1));

    // the work was shared, and every worker kept its own audit: one page row per URL overall
    const rows = auditRows(fleet);
    expect(new Set(rows.map((r) => r.file))).toEqual(new Set(['audit-w1.sqlite', 'audit-w2.sqlite', 'audit-w3.sqlite', 'audit-w4.sqlite']));
    for (const file of new Set(rows.map((r) => r.file))) expect(rows.filter((r) => r.file === file).length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.outcome === 'fetched').map((r) => r.url).sort()).toEqual([...fleet.allowed].sort());
    expect(rows.filter((r) => r.outcome === 'blocked')).toHaveLength(TOTAL_URLS - fleet.allowed.size);

    // `robots-gate audit DIR` reads the four files as one, and every stamp checks out
    const audit = await runCli(['audit', join(fleet.dir, 'out'), '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    const runs = audit.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; worker?: string; outcomes?: Record<string, number> })
      .filter((o) => o.type === 'run');
    expect(runs.map((r) => r.worker).sort()).toEqual(['w1', 'w2', 'w3', 'w4']);
    expect(runs.reduce((n, r) => n + (r.outcomes?.fetched ?? 0), 0)).toBe(fleet.allowed.size);
    // The text view names the fleet by the --run name the workers were given, beside each id.
    const text = await runCli(['audit', join(fleet.dir, 'out')]);
    const header = text.stdout.split('\n').find((l) => l.startsWith('run '));
    expect(header, text.stdout).toMatch(/^run\s+--run\s+worker\b/);
    for (const w of ['w1', 'w2', 'w3', 'w4']) expect(text.stdout).toMatch(new RegExp(`\\s${fleet.run}\\s+${w}\\s`));
    const verify = await runCli(['audit', join(fleet.dir, 'out'), '--verify']);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 90_000);
});
