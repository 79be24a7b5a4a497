// What became of each request the gate let through: its HTTP status, read from the Network
// domain of the gate's own session on a target (the endpoint does not read responses
// otherwise). Used only when someone asks (`robots-gate browser --out`): Network events cost
// a few messages per request over the pipe. A redirect hop's status is that of the response
// that redirected it; a request that failed in the browser (connection refused, a client's
// own Fetch.failRequest) ends with its error text and no status.
import type { Channel } from '../browser/channel.js';

/** One request's end as seen by the target's session. `requestId` is the Network domain's. */
export interface ResponseSeen {
  readonly targetId: string;
  readonly requestId: string;
  /** The URL the status is for (a hop of a redirect chain has its own). */
  readonly url: string;
  /** HTTP status; null when the request failed without a response. */
  readonly status: number | null;
  /** Chromium's error text (`net::ERR_…`) when it failed. */
  readonly error: string | null;
  /** ISO time it was seen. */
  readonly at: string;
}

interface Response {
  url: string;
  status: number;
}

/**
 * Starts reporting responses on `channel` (Network.enable, buffers kept small: no bodies are read).
 * @throws (rejects) when the target has no Network domain.
 */
export async function watchResponses(channel: Channel, targetId: string, seen: (r: ResponseSeen) => void): Promise<void> {
  const now = () => new Date().toISOString();
  channel.on('Network.requestWillBeSent', (e: { requestId: string; redirectResponse?: Response }) => {
    const r = e.redirectResponse;
    if (r) seen({ targetId, requestId: e.requestId, url: r.url, status: r.status, error: null, at: now() });
  });
  channel.on('Network.responseReceived', (e: { requestId: string; response: Response }) => {
    seen({ targetId, requestId: e.requestId, url: e.response.url, status: e.response.status, error: null, at: now() });
  });
  channel.on('Network.loadingFailed', (e: { requestId: string; errorText: string; blockedReason?: string }) => {
    seen({ targetId, requestId: e.requestId, url: '', status: null, error: e.errorText, at: now() });
  });
  await channel.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
}
