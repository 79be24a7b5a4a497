// `robots-gate report` (the CLI, as a subprocess) on an audit a new user reads: requests sent
// leave out blocked URLs, skipped counts what the crawl said it skipped, a second run on the same
// axis draws no wait band from the first run's last response, and the robots.txt request is drawn.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import type { AttemptRow } from '../../src/audit/types.js';
import { attemptRow } from '../helpers/attempt-rows.js';
import { runCli } from './cli.js';

const T0 = Date.parse('2026-11-30T08:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rg-report-runs-'));
  const sink = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
  sink.recordPolicy({ sha256: 'p1', origin: 'https://a.example', robotsUrl: 'https://a.example/robots.txt', finalUrl: 'https://a.example/robots.txt', status: 200, fetchedAt: iso(0), sitemaps: [], body: 'User-agent: *\nDisallow: /x\n' });
  const row = (runId: string, p: string, at: number, over: Partial<AttemptRow> = {}) =>
    sink.recordAttempt(attemptRow({ runId, host: 'a.example', url: `https://a.example${p}`, startedAt: iso(at), endedAt: iso(at + 50), policySha256: 'p1', robotsUrl: 'https://a.example/robots.txt', policyFetchedAt: iso(0), ...over }));
  sink.recordRun!({ runId: 'r1', startedAt: iso(0), userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
  row('r1', '/', 100);
  row('r1', '/x', 200, { outcome: 'blocked', status: null, bytes: null, reason: 'disallowed-by-rule', ruleLine: 2, rulePattern: '/x', endedAt: iso(200) });
  row('r1', '/b', 2150, { intervalMs: 2000, waitReason: 'floor' });
  for (const [i, text] of ['not a url', 'ftp://x'].entries()) {
    sink.recordAttempt(attemptRow({ runId: 'r1', host: '', url: text, outcome: 'skipped', status: null, bytes: null, policySha256: null, robotsUrl: null, policyFetchedAt: null, policyStatus: null, reason: 'invalid-url', startedAt: iso(i), endedAt: iso(i) }));
  }
  // A second run an hour later, its first request seeded with the host's interval.
  sink.recordRun!({ runId: 'r2', startedAt: iso(3_600_000), userAgent: 'TestBot/1.0', options: {}, resumeOf: null, worker: null });
  row('r2', '/c', 3_600_000, { intervalMs: 2000, waitReason: 'floor' });
  row('r2', '/d', 3_602_100, { intervalMs: 2000, waitReason: 'floor' });
  sink.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('report over two runs', () => {
  it('counts what was sent, what the crawl skipped, and draws bands and the robots.txt request', async () => {
    const out = path.join(dir, 'report.html');
    const r = await runCli(['report', dir, '--html', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const totals = html.slice(html.indexOf('id="totals"'), html.indexOf('<h2>Hosts'));
    // 5 URLs decided, 1 blocked: 4 requests sent.
    expect(totals).toContain('<b>4</b><span>requests sent (robots.txt aside)</span>');
    expect(totals).toContain('<b>1</b><span>blocked by robots.txt (not sent)</span>');
    // The crawl's summary said "skipped 2": the two input lines that were not URLs.
    expect(totals).toContain('<b>2</b><span>skipped (2 of them input lines that are not URLs)</span>');
    const svg = /<svg role="img" aria-label="Timeline of 5 requests to a\.example[\s\S]*?<\/svg>/.exec(html)![0];
    // Bands (fill-opacity .5): /b after /, and /d after /c, never /c from r1's last response an hour before.
    const bands = [...svg.matchAll(/<rect x="([\d.]+)"[^>]*fill-opacity=".5"/g)];
    expect(bands).toHaveLength(2);
    // The robots.txt request has its row.
    expect(svg).toContain('<g data-robots="1"><title>a.example/robots.txt fetched at 2026-11-30T08:00:00.000Z');
    expect(svg).toMatch(/>robots\.txt<\/text>/);
  });
});
