// The audit browser (`robots-gate serve DIR`, real Chromium) on an audit of two runs where one
// host's robots.txt changed and then changed back: counts per run, every change in order (the
// return to #1 too), the latest change as the first diff, old → new, and the requests sent.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import type { AttemptRow } from '../../src/audit/types.js';
import { attemptRow } from '../helpers/attempt-rows.js';
import { NEWS, SHA, SHOP_V1, SHOP_V2 } from './audit-fixture.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { startServe, type ServeProcess } from './cli.js';

const T0 = Date.parse('2026-11-30T08:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function writeTwoRuns(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-audit-history-'));
  const sink = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
  const policy = (sha: string, origin: string, body: string, at: number) =>
    sink.recordPolicy({ sha256: sha, origin, robotsUrl: `${origin}/robots.txt`, finalUrl: `${origin}/robots.txt`, status: 200, fetchedAt: iso(at), sitemaps: [], body });
  const row = (runId: string, host: string, p: string, at: number, sha: string, over: Partial<AttemptRow> = {}) =>
    sink.recordAttempt(attemptRow({ runId, host, url: `https://${host}${p}`, startedAt: iso(at), endedAt: iso(at + 30), policySha256: sha, robotsUrl: `https://${host}/robots.txt`, policyFetchedAt: iso(0), ...over }));
  sink.recordRun!({ runId: 'run-1', startedAt: iso(0), userAgent: 'FixtureBot/1.0', options: {}, resumeOf: null, worker: null });
  policy(SHA.shopV1, 'https://shop.example', SHOP_V1, 0);
  policy(SHA.news, 'https://news.example', NEWS, 5);
  row('run-1', 'shop.example', '/', 10, SHA.shopV1);
  row('run-1', 'news.example', '/', 20, SHA.news);
  policy(SHA.shopV2, 'https://shop.example', SHOP_V2, 600);
  sink.recordPolicyChange({ runId: 'run-1', origin: 'https://shop.example', oldSha256: SHA.shopV1, newSha256: SHA.shopV2, at: iso(600) });
  row('run-1', 'shop.example', '/checkout', 700, SHA.shopV2, { outcome: 'blocked', status: null, bytes: null, reason: 'disallowed-by-rule', ruleLine: 3, rulePattern: '/checkout' });
  // ... and back: the first text again.
  sink.recordPolicyChange({ runId: 'run-1', origin: 'https://shop.example', oldSha256: SHA.shopV2, newSha256: SHA.shopV1, at: iso(900) });
  row('run-1', 'shop.example', '/checkout', 1000, SHA.shopV1, { status: 500, outcome: 'error', reason: 'http-500', bytes: null, intervalMs: 200, waitReason: 'crawl-delay' });
  sink.recordRunEnd!({ runId: 'run-1', endedAt: iso(1100), status: 'completed', counts: {}, error: null });
  sink.recordRun!({ runId: 'run-2', startedAt: iso(5000), userAgent: 'FixtureBot/1.0', options: {}, resumeOf: 'run-1', worker: null });
  row('run-2', 'shop.example', '/about', 5010, SHA.shopV1);
  sink.recordRunEnd!({ runId: 'run-2', endedAt: iso(5100), status: 'completed', counts: {}, error: null });
  sink.close();
  return dir;
}

let dir: string | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
beforeAll(async () => {
  dir = writeTwoRuns();
  serve = await startServe([dir]);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cells = (page: Page, table: string) =>
  page.locator(`#${table} tbody tr`).evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)));

async function openAudit(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1300, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${serve!.url}/audit`);
  await expect.poll(() => page.textContent('#audit-status')).toContain('requests sent to');
  return { page, errors };
}

describe('the audit browser over runs and changes', () => {
  it('counts the robots.txt versions a run saw, not every run\'s', async () => {
    const { page, errors } = await openAudit();
    expect(await page.textContent('#audit-status')).toContain('3 robots.txt versions, 2 changes');
    await page.selectOption('#run', 'run-2');
    await expect.poll(() => page.textContent('#audit-status')).toContain('1 request sent to 1 host, 1 URL decided');
    expect(await page.textContent('#audit-status')).toContain('1 robots.txt version, 0 changes');
    await page.selectOption('#run', 'run-1');
    await expect.poll(() => page.textContent('#audit-status')).toContain('3 robots.txt versions, 2 changes');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists every change, the one back to #1 too, and first shows the latest, old → new', async () => {
    const { page, errors } = await openAudit();
    await page.selectOption('#run', 'run-1');
    await page.click('#hosts button[data-host="shop.example"]');
    await expect.poll(() => cells(page, 'changes')).toEqual([
      ['2026-11-30T08:00:00.600Z', 'run-1', '#1', '#2', 'Show the diff'],
      ['2026-11-30T08:00:00.900Z', 'run-1', '#2', '#1', 'Show the diff'],
    ]);
    // The latest change is #2 → #1: /checkout is no longer disallowed.
    expect(await page.textContent('#boundary')).toContain('Changed at 2026-11-30T08:00:00.900Z (run run-1)');
    expect(await page.inputValue('#diff-from')).toBe('1');
    expect(await page.inputValue('#diff-to')).toBe('0');
    const changed = await page.locator('#diff > div').evaluateAll((els) => els.map((e) => [e.getAttribute('data-kind'), e.textContent]).filter(([k]) => k !== 'same'));
    expect(changed).toEqual([['removed', '3- Disallow: /checkout']]);
    // The earlier change, on request.
    await page.click('#changes tbody tr:first-child button');
    await expect.poll(() => page.textContent('#boundary')).toContain('Changed at 2026-11-30T08:00:00.600Z');
    expect(await page.locator('#diff [data-kind="added"]').allTextContents()).toEqual(['3+ Disallow: /checkout']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'audit-history.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("lists the host's requests that were sent, with status, wait and version", async () => {
    const { page, errors } = await openAudit();
    await page.click('#hosts button[data-host="shop.example"]');
    await expect.poll(() => cells(page, 'sent')).toEqual([
      ['https://shop.example/', '2026-11-30T08:00:00.010Z', 'fetched', '200', '10', '–', '#1'],
      ['https://shop.example/checkout', '2026-11-30T08:00:01.000Z', 'error', '500', '–', '200 ms (crawl-delay)', '#1'],
      ['https://shop.example/about', '2026-11-30T08:00:05.010Z', 'fetched', '200', '10', '–', '#1'],
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
