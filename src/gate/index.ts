export { RobotsGate, type RobotsGateEvents, type CheckOptions } from './gate.js';
export type { RobotsGateOptions } from './options.js';
export type { GateFetchInit } from './gated-fetch.js';
export { RobotsBlockedError, InvalidUserAgentError, TooManyRedirectsError, InvalidOptionError, GateClosedError, type UserAgentProblem } from './errors.js';
export { crawlerIdentity, type CrawlerIdentity } from './identity.js';
export type { Decision, DecisionReason, PolicyStamp, PolicyChange, GatePolicyRecord, FetchHop } from './types.js';
