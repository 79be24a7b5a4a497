// An endpoint over the loopback site, and a DevTools client on it (chrome-remote-interface with
// its bundled protocol, `local`: no /json/protocol round trip per connection).
import CDP from 'chrome-remote-interface';
import { RobotsGate } from '../../src/gate/index.js';
import { DevToolsEndpoint } from '../../src/devtools/endpoint.js';
import type { TargetRequest } from '../../src/devtools/target-watch.js';
import { startSite, UA, type Site } from './site.js';

export interface Harness {
  site: Site;
  gate: RobotsGate;
  endpoint: DevToolsEndpoint;
  decided: TargetRequest[];
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const site = await startSite();
  const gate = new RobotsGate({ userAgent: UA, resolve: site.hosts.resolve });
  const endpoint = await DevToolsEndpoint.start({ gate, port: 0, resolve: site.hosts.resolve });
  const decided: TargetRequest[] = [];
  endpoint.on('request', (e) => decided.push(e));
  return {
    site,
    gate,
    endpoint,
    decided,
    close: async () => {
      await endpoint.close();
      await gate.close();
      await site.close();
    },
  };
}

/** Raw DevTools over chrome-remote-interface, untyped: the Robots domain is not in its protocol. */
export interface Raw {
  send(method: string, params?: object, sessionId?: string): Promise<Record<string, any>>;
  /** Every event so far, in arrival order. */
  events: Array<{ method: string; params: Record<string, any>; sessionId?: string }>;
  /** Calls `fn` with each event from now on. */
  onEvent(fn: (e: Raw['events'][number]) => void): void;
  /** Resolves with the first event (so far or later) that matches. */
  waitFor(method: string, match?: (params: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export async function connect(wsUrl: string): Promise<Raw> {
  const client = await CDP({ target: wsUrl, local: true });
  const events: Raw['events'] = [];
  const waiters = new Set<() => void>();
  const listeners: Array<(e: Raw['events'][number]) => void> = [];
  client.on('event', (m: { method: string; params: Record<string, any>; sessionId?: string }) => {
    events.push(m);
    for (const w of waiters) w();
    for (const l of listeners) l(m);
  });
  return {
    send: (method, params = {}, sessionId) => (client as any).send(method, params, sessionId),
    events,
    onEvent: (fn) => void listeners.push(fn),
    waitFor: (method, match = () => true, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const e = events.find((x) => x.method === method && match(x.params));
          if (!e) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(e.params);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    close: () => client.close(),
  };
}

/** A new page with a flat session on it, Network and Page enabled. */
export async function openPage(c: Raw, robots = true): Promise<{ targetId: string; sessionId: string }> {
  const { targetId } = await c.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
  if (robots) await c.send('Robots.enable', {}, sessionId);
  await c.send('Network.enable', {}, sessionId);
  await c.send('Page.enable', {}, sessionId);
  return { targetId, sessionId };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
