// 'robots-gate/devtools': a gated Chromium behind a DevTools endpoint, for clients in any language.
export { DevToolsEndpoint, endpointBlockedChannel, ungatableChannel, type DevToolsEndpointOptions, type DevToolsEndpointEvents, type EndpointGate } from './endpoint.js';
export { BrowserExitedError, BrowserStartError, EndpointListenError } from './errors.js';
export type { TargetRequest } from './target-watch.js';
export type { ResponseSeen } from './responses.js';
