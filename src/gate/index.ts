export { RobotsGate, type RobotsGateEvents } from './gate.js';
export type { RobotsGateOptions } from './options.js';
export type { GateFetchInit } from './gated-fetch.js';
export { RobotsBlockedError, InvalidUserAgentError, TooManyRedirectsError, InvalidOptionError } from './errors.js';
export type { Decision, DecisionReason, PolicyStamp, PolicyChange, GatePolicyRecord, FetchHop } from './types.js';
