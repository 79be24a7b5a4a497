// A small crawl's audit written through the real SQLite sink: two hosts, one robots.txt change,
// blocked URLs, and waits from each source. For tests that need an audit DIR without a crawl.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import type { AttemptRow } from '../../src/audit/types.js';

export const SHOP_V1 = 'User-agent: *\nDisallow: /cart\nCrawl-delay: 0.2\n';
export const SHOP_V2 = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout\nCrawl-delay: 0.2\n';
export const NEWS = 'User-agent: *\nDisallow: /drafts/\n';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
export const SHA = { shopV1: sha(SHOP_V1), shopV2: sha(SHOP_V2), news: sha(NEWS) };

/** Start time of the fixture's run (ms). */
export const T0 = Date.parse('2026-11-30T08:00:00.000Z');
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

/** Write the audit into a new temp DIR and return its path. */
export function writeAuditFixture(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-tools-audit-'));
  const sink = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
  const runId = 'run-fixture-1';
  sink.recordRun!({ runId, startedAt: iso(0), userAgent: 'FixtureBot/1.0', options: {}, resumeOf: null, worker: null });
  sink.recordPolicy({ sha256: SHA.shopV1, origin: 'https://shop.example', robotsUrl: 'https://shop.example/robots.txt', finalUrl: 'https://shop.example/robots.txt', status: 200, fetchedAt: iso(0), sitemaps: [], body: SHOP_V1 });
  sink.recordPolicy({ sha256: SHA.news, origin: 'https://news.example', robotsUrl: 'https://news.example/robots.txt', finalUrl: 'https://news.example/robots.txt', status: 200, fetchedAt: iso(5), sitemaps: [], body: NEWS });
  const attempt = (host: string, policy: string, offsetMs: number, urlPath: string, over: Partial<AttemptRow>): AttemptRow => ({
    runId, url: `https://${host}${urlPath}`, host, startedAt: iso(offsetMs), endedAt: iso(offsetMs + 40), outcome: 'fetched',
    status: 200, bytes: 1000, contentSha256: null, savedPath: null, policySha256: policy, robotsUrl: `https://${host}/robots.txt`,
    policyFetchedAt: iso(0), policyStatus: 200, reason: 'no-matching-rule', ruleLine: null, rulePattern: null, parentUrl: null,
    kind: 'page', waitReason: null, intervalMs: null, error: null, attempt: 1, final: true, ...over,
  });
  const shop = (o: number, p: string, over: Partial<AttemptRow>, policy = SHA.shopV1) =>
    sink.recordAttempt(attempt('shop.example', policy, o, p, { waitReason: 'crawl-delay', intervalMs: 200, policyFetchedAt: iso(policy === SHA.shopV2 ? 600 : 0), ...over }));
  shop(10, '/', { waitReason: null, intervalMs: null });
  shop(255, '/products', {});
  shop(500, '/cart', { outcome: 'blocked', status: null, bytes: null, reason: 'disallowed-by-rule', ruleLine: 2, rulePattern: '/cart', endedAt: iso(500) });
  shop(500, '/about', {});
  // Each request starts ~205 ms after the previous response ended: polite under the 200 ms Crawl-delay.
  // The robots.txt changes: /checkout is now disallowed.
  sink.recordPolicy({ sha256: SHA.shopV2, origin: 'https://shop.example', robotsUrl: 'https://shop.example/robots.txt', finalUrl: 'https://shop.example/robots.txt', status: 200, fetchedAt: iso(600), sitemaps: [], body: SHOP_V2 });
  sink.recordPolicyChange({ runId, origin: 'https://shop.example', oldSha256: SHA.shopV1, newSha256: SHA.shopV2, at: iso(600) });
  // The refetch at +600 is a request the host saw: /contact waits its interval after it.
  shop(805, '/checkout', { outcome: 'blocked', status: null, bytes: null, reason: 'disallowed-by-rule', ruleLine: 3, rulePattern: '/checkout', endedAt: iso(805) }, SHA.shopV2);
  shop(805, '/contact', {}, SHA.shopV2);
  const news = (o: number, p: string, over: Partial<AttemptRow>) =>
    sink.recordAttempt(attempt('news.example', SHA.news, o, p, { waitReason: 'floor', intervalMs: 100, ...over }));
  news(20, '/', { waitReason: null, intervalMs: null });
  // Retried after its back-off, as the crawl records it: the 503 row is not the URL's final one.
  news(165, '/world', { outcome: 'error', status: 503, bytes: null, reason: 'http-error', error: 'HTTP 503', final: false });
  news(510, '/world', { waitReason: 'backoff', intervalMs: 300, attempt: 2 });
  news(560, '/drafts/x', { outcome: 'blocked', status: null, bytes: null, reason: 'disallowed-by-rule', ruleLine: 2, rulePattern: '/drafts/', endedAt: iso(560) });
  // Lines of the URL list that were not URLs, as the crawl records them: skipped, with no host.
  const notUrl = (o: number, text: string, reason: string, error: string) =>
    sink.recordAttempt({ ...attempt('', SHA.news, o, '', {}), url: text, host: '', outcome: 'skipped', status: null, bytes: null,
      policySha256: null, robotsUrl: null, policyFetchedAt: null, policyStatus: null, reason, error });
  notUrl(1, 'not a url at all', 'invalid-url', 'not a URL: not a url at all');
  notUrl(2, 'https://user:***@shop.example/', 'credentials', 'the URL carries a user name and password');
  sink.recordRunEnd!({ runId, endedAt: iso(860), status: 'completed', counts: {}, error: null });
  sink.close();
  return dir;
}
