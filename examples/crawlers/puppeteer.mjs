#!/usr/bin/env node
// `npm run example:puppeteer`: a plain puppeteer-core script with every page of the browser gated
// by robots-gate/puppeteer. A disallowed navigation fails as net::ERR_BLOCKED_BY_CLIENT before it
// leaves the browser; the handle says which rule blocked it. Each attempt goes to the audit.
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { RobotsGate, SqliteAuditSink } from 'robots-gate';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM, hostResolverRules } from 'robots-gate/browser';
import { gateBrowser } from 'robots-gate/puppeteer';
import { USER_AGENT, finish, setUp } from './replay.mjs';

const run = await setUp('puppeteer');
const gate = new RobotsGate({ userAgent: USER_AGENT, resolve: run.resolve });
const audit = new SqliteAuditSink(join(run.out, 'audit.sqlite'));
const runId = `puppeteer-${Date.now()}`;
audit.recordRun({ runId, startedAt: new Date().toISOString(), userAgent: USER_AGENT, options: { via: 'examples/crawlers/puppeteer.mjs' }, resumeOf: null, worker: null });
gate.on('policy', (r) => {
  if (r.sha256 && r.body !== undefined) {
    audit.recordPolicy({ sha256: r.sha256, origin: r.origin, robotsUrl: r.robotsUrl, finalUrl: r.finalUrl, status: r.status, fetchedAt: new Date(r.fetchedAt).toISOString(), sitemaps: [], body: r.body });
  }
});
const row = (url, decision, outcome, status, at) => ({
  runId, url, host: new URL(url).host, startedAt: at, endedAt: new Date().toISOString(), outcome, status, bytes: null,
  contentSha256: null, savedPath: null, policySha256: decision?.policy.sha256 ?? null, robotsUrl: decision?.policy.robotsUrl ?? null,
  policyFetchedAt: decision?.policy.fetchedAt ?? null, policyStatus: decision?.policy.status ?? null, reason: decision?.reason ?? 'check-failed',
  ruleLine: decision?.rule?.line ?? null, rulePattern: decision?.rule?.pattern ?? null, parentUrl: null, kind: 'page',
  waitReason: null, intervalMs: null, error: null, final: true,
});

const browser = await puppeteer.launch({
  executablePath: DEFAULT_CHROMIUM,
  args: [...CHROMIUM_ARGS, `--host-resolver-rules=${hostResolverRules(run.resolve)}`],
});
const handle = await gateBrowser(browser, gate);
handle.on('blocked', (b) => console.log(`blocked  ${b.url}  (${b.decision?.reason}${b.decision?.rule ? `: line ${b.decision.rule.line}` : ''})`));
const page = await browser.newPage();
for (const url of run.urls) {
  const at = new Date().toISOString();
  try {
    const response = await page.goto(url);
    console.log(`loaded   ${url}  "${await page.title()}"`);
    audit.recordAttempt(row(url, await gate.check(url), 'fetched', response?.status() ?? null, at));
  } catch (err) {
    if (!/ERR_BLOCKED_BY_CLIENT/.test(err.message)) throw err;
    audit.recordAttempt(row(url, await gate.check(url), 'blocked', null, at));
  }
  // Politeness by hand here (Crawlee's adapter takes each host's slot for you): 300 ms apart.
  await new Promise((r) => setTimeout(r, 300));
}
audit.recordRunEnd({ runId, endedAt: new Date().toISOString(), status: 'completed', counts: {}, error: null });
await handle.dispose();
await browser.close();
audit.close();
await gate.close();
await run.replay.close();
process.exitCode = finish(run);
