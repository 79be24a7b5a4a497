// The browsing session's audit without a browser: decisions from a real gate over a loopback
// host, responses as the endpoint reports them, rows in a real SQLite audit. An allowed row waits
// for its response; one that failed in the browser keeps the error text; one whose response never
// comes is written without a status (after the wait, or at close); a response seen before its
// row still lands on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { SessionAudit } from '../../src/devtools/session-audit.js';
import type { TargetRequest } from '../../src/devtools/target-watch.js';
import { RobotsGate } from '../../src/gate/index.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

const HOST = 'audit.shop.test';
let hosts: VirtualHosts;
let gate: RobotsGate;
let dir: string;

beforeAll(async () => {
  hosts = await startVirtualHosts({ [HOST]: site('User-agent: *\nDisallow: /private/\n') });
  gate = new RobotsGate({ userAgent: 'AuditBot/1.0', resolve: hosts.resolve });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-session-audit-'));
});
afterAll(async () => {
  await gate?.close();
  await hosts?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function entry(p: string, requestId: string): Promise<TargetRequest> {
  const url = `${hosts.origin(HOST)}${p}`;
  return {
    url, method: 'GET', resourceType: 'script', isNavigation: false, frameUrl: `${hosts.origin(HOST)}/`, redirectedFrom: null,
    decision: await gate.check(url), error: null, at: new Date().toISOString(), request: null, page: null,
    frameId: 'F', requestId, targetId: 'T',
  };
}

const seen = (url: string, requestId: string, status: number | null, error: string | null = null) =>
  ({ targetId: 'T', requestId, url, status, error, at: new Date().toISOString() });

test('allowed rows carry their status or error; unanswered ones are written without a status; blocked ones at once', async () => {
  const out = path.join(dir, 'one');
  fs.mkdirSync(out);
  const audit = new SessionAudit(new SqliteAuditSink(path.join(out, 'audit.sqlite')), gate, 'run-1', {}, 50);
  const ok = await entry('/app.js', 'r1');
  audit.record(ok);
  audit.response(seen(ok.url, 'r1', 200));
  const failed = await entry('/down.js', 'r2');
  audit.record(failed);
  audit.response(seen('', 'r2', null, 'net::ERR_CONNECTION_REFUSED'));
  // Reported before its row: still its status.
  const early = await entry('/early.js', 'r3');
  audit.response(seen(early.url, 'r3', 404));
  audit.record(early);
  audit.record(await entry('/private/x.js', 'r4'));
  audit.record(await entry('/never.js', 'r5'));
  await new Promise((r) => setTimeout(r, 300)); // past the 50 ms wait: the sweep writes /never.js
  audit.record(await entry('/at-close.js', 'r6'));
  audit.close('completed');

  const reader = openAudit(out);
  try {
    const rows = new Map(reader.attempts({}).map((a) => [new URL(a.url).pathname, a]));
    expect(rows.get('/app.js')).toMatchObject({ outcome: 'fetched', status: 200, error: null });
    expect(rows.get('/down.js')).toMatchObject({ outcome: 'fetched', status: null, error: 'net::ERR_CONNECTION_REFUSED' });
    expect(rows.get('/early.js')).toMatchObject({ outcome: 'fetched', status: 404 });
    expect(rows.get('/private/x.js')).toMatchObject({ outcome: 'blocked', status: null, ruleLine: 2 });
    expect(rows.get('/never.js')).toMatchObject({ outcome: 'fetched', status: null });
    expect(rows.get('/at-close.js')).toMatchObject({ outcome: 'fetched', status: null });
    expect(rows.size).toBe(6);
  } finally {
    reader.close();
  }
});
