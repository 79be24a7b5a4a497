#!/usr/bin/env node
// `npm run example:crawlee`: a CheerioCrawler put under robots-gate with one call, crawling the
// demo's replay of real sites. Disallowed URLs are skipped the way Crawlee skips (reason
// robotsTxt, with the gate's decision), every redirect hop is decided, each host is spaced, and
// each attempt goes to an audit that `robots-gate audit` reads.
import { join } from 'node:path';
import { CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import { RobotsGate, SqliteAuditSink } from 'robots-gate';
import { gateCrawler } from 'robots-gate/crawlee';
import { USER_AGENT, finish, loopbackLookup, setUp } from './replay.mjs';

log.setLevel(LogLevel.ERROR);
const run = await setUp('crawlee-cheerio');
// A 300 ms floor per host (the default is 2 s), so the example ends in seconds.
const gate = new RobotsGate({ userAgent: USER_AGENT, resolve: run.resolve, minIntervalMs: 300 });
const audit = new SqliteAuditSink(join(run.out, 'audit.sqlite'));

const crawler = new CheerioCrawler(
  {
    maxConcurrency: 10,
    // The replay's host names resolve to loopback (the gate's robots.txt fetches use `resolve`).
    preNavigationHooks: [(_ctx, gotOptions) => void (gotOptions.dnsLookup = loopbackLookup)],
    requestHandler: async ({ request, $ }) => console.log(`fetched  ${request.url}  "${$('title').text()}"`),
    onSkippedRequest: async ({ url, decision }) =>
      console.log(`skipped  ${url}  (${decision?.reason}${decision?.rule ? `: line ${decision.rule.line} ${decision.rule.type}: ${decision.rule.pattern}` : ''})`),
  },
  new Configuration({ persistStorage: false }),
);
// The one line: the gate decides every request, hop and enqueue, and spaces each host.
gateCrawler(crawler, gate, { audit });

await crawler.run(run.urls);
audit.close();
await gate.close();
await run.replay.close();
process.exitCode = finish(run);
