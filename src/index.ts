// robots-gate: the library's public API. Each layer adds its exports below.
export { RobotsGate, RobotsBlockedError, InvalidUserAgentError, TooManyRedirectsError, InvalidOptionError, GateClosedError, crawlerIdentity } from './gate/index.js';
export type {
  RobotsGateOptions,
  RobotsGateEvents,
  CheckOptions,
  GateFetchInit,
  UserAgentProblem,
  CrawlerIdentity,
  Decision,
  DecisionReason,
  PolicyStamp,
  PolicyChange,
  GatePolicyRecord,
  FetchHop,
} from './gate/index.js';
export { createResolvingAgent, parseResolveEntries } from './fetcher/resolving-agent.js';
export { originOf, parseHttpUrl } from './fetcher/url.js';
export { UnsupportedSchemeError, InvalidResolveEntryError } from './fetcher/errors.js';
export { fetchRobotsTxt, type RobotsFetchResult, type RobotsFetchOptions } from './fetcher/robots-fetcher.js';
export { MemoryPolicyStore, type MemoryPolicyStoreOptions } from './stores/memory-policy-store.js';
export type { PolicyStore, PolicyRecord } from './stores/types.js';
export { MemoryRateLimiter } from './stores/memory-rate-limiter.js';
export type { RateLimiter, Lease, AcquireResult, AcquireOptions } from './stores/types.js';
export { MemoryFrontier, hostInterval, Pacer, pacerFor, defaultLimiter } from './politeness/index.js';
export type { Slot, WaitEvent } from './politeness/index.js';
export type { Frontier, FrontierItem, FrontierOptions, FrontierCounts, HostPolicy, TakeResult, TakenItem, WaitReason } from './politeness/index.js';
export { CrawlJob, HttpTransport, readUrlList, documentPath, saveDocument, OutputWriteError, DocumentPlacementError } from './crawl/index.js';
export type { CrawlJobOptions, CrawlStats, CrawlResult, DocumentTransport, TransportResult, Hop, CrawlGate } from './crawl/index.js';
export { SqliteAuditSink, JsonlAuditSink, TeeAuditSink, AuditWriteError, openAudit, AuditReadError } from './audit/index.js';
export type { AttemptRow, PolicyRow, PolicyChangeRow, RunRow, RunEndRow, AuditSink, AuditReader, AttemptOutcome } from './audit/index.js';
// The fleet: the Redis stores (createRedisStores) load ioredis, so they have their own entry,
// `robots-gate/redis` (dist/stores/redis.js); the shared frontier needs only a connection from it.
export {
  RedisFrontier,
  createRedisFrontier,
  FleetStateLostError,
  type RedisFrontierOptions,
  type FrontierLeaseLostEvent,
} from './crawl/redis-frontier.js';
export { discoverSitemaps, SitemapDiscovery } from './discovery/index.js';
export type { DiscoverOptions, DiscoveredUrl, DiscoveryStats, DropReason, SitemapFormat, SitemapLimit, SitemapReport } from './discovery/index.js';
