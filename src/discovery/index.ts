export { discoverSitemaps, SitemapDiscovery, sampleDraw } from './discover.js';
export type { DiscoverOptions } from './options.js';
export type { DiscoveryGate } from './read-sitemap.js';
export { sitemapRow } from './sitemap-row.js';
export type { DiscoveredUrl, DiscoveryStats, DropReason, SitemapFormat, SitemapLimit, SitemapReport } from './types.js';
export type { SitemapEntry } from './sitemap-parser.js';
export { lastmodReliability, latestClaimsRun, type HostReliability, type FreshnessEvidence } from './freshness.js';
