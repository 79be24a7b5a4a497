// robots-gate: the library's public API. Each layer adds its exports below.
export { RobotsGate, RobotsBlockedError, InvalidUserAgentError, TooManyRedirectsError } from './gate/index.js';
export type {
  RobotsGateOptions,
  RobotsGateEvents,
  GateFetchInit,
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
