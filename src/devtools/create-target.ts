// Target.createTarget (a client's, or /json/new's) with its URL taken out: Chromium starts a
// created target's first navigation from the browser process before any auto-attached session
// holds the target, so `waitForDebuggerOnStart` does not stop it and a disallowed URL reached its
// server ungated. The target is created at about:blank (no request), and navigated to the URL
// from the gate's own session once that session intercepts (target-watch.ts). RFC 9309 §2.2.2
// holds for a target's first URL as for any other.
import type { TargetWatch } from './target-watch.js';
import type { Message, Upstream } from './upstream.js';

/** What Chromium's Target.createTarget takes; every other field is passed through as it is. */
export interface CreateTargetParams {
  url?: unknown;
  [key: string]: unknown;
}

/** A URL the new target may open without a request of its own. */
const BLANK = /^(?:about:blank)?$/i;

/**
 * Creates the target as `Target.createTarget` would, on `sessionId` (the caller's browser-level
 * session; the root when undefined), and resolves with Chromium's reply (`result: { targetId }`,
 * or its `error`, to relay as it is) once the navigation to `params.url` is sent, gated. Like
 * Chromium's, it does not wait for the page to load. When the gate cannot hold the target, the
 * target is closed (fail closed) and the reply is an error. Never rejects.
 */
export async function createGatedTarget(upstream: Upstream, watch: TargetWatch, params: CreateTargetParams, sessionId?: string): Promise<Message> {
  const url = typeof params.url === 'string' ? params.url : '';
  const message: Message = { method: 'Target.createTarget', params: { ...params, url: 'about:blank' } };
  if (sessionId !== undefined) message.sessionId = sessionId;
  const reply = await new Promise<Message>((resolve) => upstream.forward(message, resolve));
  const targetId = reply.result?.targetId;
  if (reply.error || typeof targetId !== 'string' || BLANK.test(url)) return reply;
  let gateSession: string;
  try {
    gateSession = await watch.held(targetId);
  } catch (err) {
    await upstream.call('Target.closeTarget', { targetId }).catch(() => {});
    return { error: { code: -32000, message: `robots-gate: ${(err as Error).message}; the target is closed` } };
  }
  // Sent before the reply, so that the caller's next command comes after it on the pipe; its
  // outcome (a blocked navigation's errorText among them) is the page's, not createTarget's.
  upstream.call('Page.navigate', { url }, gateSession).catch(() => {});
  return reply;
}
