// Types for scripts/url-list.mjs (plain JavaScript so that `node scripts/…` runs it directly).
import type { RuleRef } from '../src/parser/types.js';

export const DEMO_USER_AGENT: string;
export const ORDINARY_PAGES: readonly string[];

export interface ScannedRule {
  type: 'allow' | 'disallow';
  pattern: string;
  line: number;
}

export interface PlannedUrl {
  url: string;
  /** Path and query, starting with '/'. */
  path: string;
  /** The parser's answer for the demo's user agent. */
  allowed: boolean;
  /** The deciding rule, or null when none matched. */
  rule: RuleRef | null;
}

export interface HostPlan {
  host: string;
  /** Crawl-delay in SECONDS from the group that applies, if any. */
  crawlDelaySeconds: number | undefined;
  /** Planned interval between requests (ms): the larger of Crawl-delay and the floor with jitter. */
  intervalMs: number;
  /** Crawl-delay over the maximum: the crawl skips this host. */
  skipped: boolean;
  /** Allowed URLs × intervalMs (ms); 0 when skipped. */
  boundMs: number;
  urls: PlannedUrl[];
}

export interface BuildOptions {
  userAgent?: string;
  /** ms, default 2000. */
  minIntervalMs?: number;
  /** Worst-case upward jitter of the floor, default 0.2. */
  jitter?: number;
  /** ms, default 60,000. */
  budgetMs?: number;
  /** seconds, default 60. */
  maxCrawlDelaySeconds?: number;
  maxAllowed?: number;
  maxDisallowed?: number;
}

export function scanRules(bytes: Uint8Array): ScannedRule[];
export function patternToPath(pattern: string): string | null;
/** @throws Error when dist/parser is not built. */
export function buildHostUrls(example: { host: string; bytes: Uint8Array }, options: BuildOptions & { origin: string }): HostPlan;
/** @throws Error when dist/parser is not built. */
export function buildUrlList(
  examples: { host: string; bytes: Uint8Array }[],
  options: BuildOptions & { origin: (host: string) => string },
): HostPlan[];
export function formatUrlList(hosts: HostPlan[], userAgent?: string): string;
