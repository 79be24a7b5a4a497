// Crawlee's two browser crawlers on Debian's Chromium, headless, storage in memory: what the
// browser tests of robots-gate/crawlee run each case against.
import { Configuration, PlaywrightCrawler, PuppeteerCrawler } from 'crawlee';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '../../src/browser/index.js';

export const config = () => new Configuration({ persistStorage: false, purgeOnStart: true });
export const launchOptions = { executablePath: DEFAULT_CHROMIUM, args: [...CHROMIUM_ARGS], headless: true };

export const crawlers = [
  ['PlaywrightCrawler', (opts: object) =>
    new PlaywrightCrawler({ ...opts, launchContext: { launcher: chromium, launchOptions }, browserPoolOptions: { useFingerprints: false } }, config())],
  ['PuppeteerCrawler', (opts: object) =>
    new PuppeteerCrawler({ ...opts, launchContext: { launcher: puppeteer, launchOptions }, browserPoolOptions: { useFingerprints: false } }, config())],
] as const;
