// node:diagnostics_channel events: free when nobody subscribes, the way undici publishes its own.
import diagnostics_channel from 'node:diagnostics_channel';

/** Each robots.txt fetch, when it ends: `{ origin, result }` (result: RobotsFetchResult, body bytes excluded). */
export const fetchChannel = diagnostics_channel.channel('robots-gate:fetch');
/** Each decision: the Decision. */
export const decisionChannel = diagnostics_channel.channel('robots-gate:decision');
/** Each policy change: the PolicyChange. */
export const policyChangeChannel = diagnostics_channel.channel('robots-gate:policy-change');
