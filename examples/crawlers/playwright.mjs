#!/usr/bin/env node
// `npm run example:crawlee-playwright`: a PlaywrightCrawler over Debian's Chromium under
// robots-gate: the navigation is decided before the page opens, and every request the page makes
// (subresources, frames, redirect hops) goes through robots-gate/browser.
import { join } from 'node:path';
import { Configuration, log, LogLevel, PlaywrightCrawler } from 'crawlee';
import { chromium } from 'playwright-core';
import { RobotsGate, SqliteAuditSink } from 'robots-gate';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM, hostResolverRules } from 'robots-gate/browser';
import { gateCrawler } from 'robots-gate/crawlee';
import { USER_AGENT, finish, setUp } from './replay.mjs';

log.setLevel(LogLevel.ERROR);
const run = await setUp('crawlee-playwright');
// A 300 ms floor per host (the default is 2 s), so the example ends in seconds.
const gate = new RobotsGate({ userAgent: USER_AGENT, resolve: run.resolve, minIntervalMs: 300 });
const audit = new SqliteAuditSink(join(run.out, 'audit.sqlite'));

const crawler = new PlaywrightCrawler(
  {
    maxConcurrency: 4,
    launchContext: {
      launcher: chromium,
      launchOptions: {
        executablePath: DEFAULT_CHROMIUM,
        args: [...CHROMIUM_ARGS, `--host-resolver-rules=${hostResolverRules(run.resolve)}`],
        // Crawlee puts a local proxy in front of Playwright's browsers; it would resolve the
        // replay's host names itself. Bypassed, Chromium's resolver rules apply.
        proxy: { bypass: '*' },
      },
    },
    browserPoolOptions: { useFingerprints: false },
    requestHandler: async ({ request, page, response }) => console.log(`rendered ${request.url}  ${response?.status()} "${await page.title()}"`),
    onSkippedRequest: async ({ url, decision }) => console.log(`skipped  ${url}  (${decision?.reason})`),
  },
  new Configuration({ persistStorage: false }),
);
gateCrawler(crawler, gate, { audit });

await crawler.run(run.urls);
audit.close();
await gate.close();
await run.replay.close();
process.exitCode = finish(run);
