// The browsing session's audit proves its politeness: three navigations to one host through the
// endpoint (real Chromium, a loopback host, a 1,000 ms floor) each wait for the host's slot, and
// each navigation row starts when it was let go, after that wait, with the wait's reason and
// interval; so the gap from the previous row's end is at least the interval, as the server saw
// it, and `robots-gate report` shows no gap under it. A row stamped at the decision (before the
// wait) showed gaps of a few hundred ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { DevToolsEndpoint } from '../../src/devtools/endpoint.js';
import { SessionAudit } from '../../src/devtools/session-audit.js';
import { RobotsGate } from '../../src/gate/index.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { connect, type Raw } from './harness.js';

const HOST = 'paced.shop.test';
const FLOOR_MS = 1_000;
/** The server stamps with performance.timeOrigin + now(), the audit with Date.now(): a few ms apart at most. */
const CLOCK_SLACK_MS = 5;

let hosts: VirtualHosts;
let gate: RobotsGate;
let endpoint: DevToolsEndpoint;
let audit: SessionAudit;
let c: Raw;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  // Pages without subresources: each navigation is the host's only request after robots.txt.
  hosts = await startVirtualHosts({ [HOST]: site('User-agent: *\nAllow: /\n') });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-navigation-audit-'));
  gate = new RobotsGate({ userAgent: 'PacedAuditBot/1.0', resolve: hosts.resolve, minIntervalMs: FLOOR_MS, jitter: 0, limiter: new MemoryRateLimiter() });
  // Wired as `robots-gate browser --out DIR` wires them.
  audit = new SessionAudit(new SqliteAuditSink(path.join(dir, 'audit.sqlite')), gate, 'run-paced', { command: 'browser' });
  endpoint = await DevToolsEndpoint.start({ gate, port: 0, resolve: hosts.resolve, responses: true });
  endpoint.on('request', (e) => audit.record(e));
  endpoint.on('response', (r) => audit.response(r));
  c = await connect(endpoint.webSocketDebuggerUrl);
});
afterAll(async () => {
  await c?.close();
  await endpoint?.close();
  await gate?.close();
  await hosts?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('each navigation row starts after its slot wait, with its waitReason and intervalMs; the report shows no gap under the interval', async () => {
  const { targetId } = await c.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
  await c.send('Page.enable', {}, sessionId);
  const pages = ['/p1', '/p2', '/p3'];
  for (const p of pages) {
    const since = c.events.length;
    // Page.navigate answers once the navigation has its response, after its slot wait.
    await c.send('Page.navigate', { url: `${hosts.origin(HOST)}${p}` }, sessionId);
    await c.waitFor('Page.loadEventFired', () => c.events.slice(since).some((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId));
  }
  await c.send('Target.closeTarget', { targetId });
  audit.close('completed');

  // The server saw the host's interval kept between one response's end and the next request.
  const seen = hosts.requests(HOST).filter((r) => pages.includes(r.path));
  expect(seen.map((r) => r.path)).toEqual(pages);

  const reader = openAudit(dir);
  let rows;
  try {
    rows = reader.attempts({}).filter((a) => a.kind === 'navigation');
  } finally {
    reader.close();
  }
  expect(rows.map((a) => [new URL(a.url).pathname, a.outcome, a.status])).toEqual(pages.map((p) => [p, 'fetched', 200]));
  for (const [i, a] of rows.entries()) {
    expect([a.waitReason, a.intervalMs], a.url).toEqual(['floor', FLOOR_MS]);
    // The decision's stamp stays the decision's.
    expect(a.robotsUrl).toBe(`${hosts.origin(HOST)}/robots.txt`);
    expect(a.policySha256).toMatch(/^[0-9a-f]{64}$/);
    // Let go before the server saw the request arrive...
    expect(Date.parse(a.startedAt)).toBeLessThanOrEqual(seen[i]!.startedAt + CLOCK_SLACK_MS);
    if (i === 0) continue;
    // ...and no sooner than the interval after the previous navigation's response.
    expect(Date.parse(a.startedAt) - Date.parse(rows[i - 1]!.endedAt), a.url).toBeGreaterThanOrEqual(FLOOR_MS);
  }

  const report = await runCli(['report', dir]);
  expect(report.code, report.stderr).toBe(0);
  expect(report.stdout).not.toMatch(/TOO SOON/);
  const gaps = [...report.stdout.matchAll(/started ([\d.]+) (ms|s) after the previous response/g)].map(([, n, unit]) => Number(n) * (unit === 's' ? 1000 : 1));
  // The first page's gap too: from the robots.txt request its decision needed.
  expect(gaps).toHaveLength(pages.length);
  for (const g of gaps) expect(g).toBeGreaterThanOrEqual(FLOOR_MS);
}, 60_000);
