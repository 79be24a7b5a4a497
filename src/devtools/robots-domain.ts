// The `Robots` domain: what the gate decided, over DevTools, for clients that ask. Chromium knows
// no such domain; the endpoint answers it itself, so a client that never names it sees a plain
// browser. Commands:
//   Robots.enable / Robots.disable   start / stop `Robots.requestBlocked` events on this session
//                                    (a browser-level session gets every target's; a page's, its own)
//   Robots.explain({ url })          the decision for `url`, without requesting it (robots.txt may
//                                    be fetched, once per origin, as for any decision)
// Event:
//   Robots.requestBlocked            one per request failed with net::ERR_BLOCKED_BY_CLIENT; its
//                                    requestId and frameId are the ones of the Network domain
import type { Decision } from '../gate/types.js';
import type { Client, DomainHandler } from './client.js';
import type { TargetRequest } from './target-watch.js';

/** What the domain needs of the gate. */
export interface ExplainingGate {
  check(url: string): Promise<Decision>;
  readonly productToken?: string | readonly string[];
}

/** DevTools' error for bad parameters. */
class InvalidParams extends Error {
  readonly protocolCode = -32602;
}

/** The decision's why, as both the method's result and the event carry it. */
export function explanation(d: Decision, productToken: ExplainingGate['productToken']): Record<string, unknown> {
  return {
    url: d.url,
    allowed: d.allowed,
    reason: d.reason,
    rule: d.rule ? { type: d.rule.type, pattern: d.rule.pattern, line: d.rule.line } : null,
    group: d.group ? { userAgents: [...d.group.userAgents], lines: [...d.group.lines] } : null,
    robotsUrl: d.policy.robotsUrl,
    robotsStatus: d.policy.status,
    sha256: d.policy.sha256,
    fetchedAt: d.policy.fetchedAt,
    productToken: productToken ?? null,
    overridden: d.overridden,
    stale: d.stale,
    ...(d.crawlDelaySeconds !== undefined ? { crawlDelaySeconds: d.crawlDelaySeconds } : {}),
  };
}

/** Playwright-style lower-case types back to DevTools' Network.ResourceType names. */
const TYPES: Record<string, string> = {
  document: 'Document', stylesheet: 'Stylesheet', image: 'Image', media: 'Media', font: 'Font',
  script: 'Script', texttrack: 'TextTrack', xhr: 'XHR', fetch: 'Fetch', prefetch: 'Prefetch',
  eventsource: 'EventSource', websocket: 'WebSocket', manifest: 'Manifest', signedexchange: 'SignedExchange',
  ping: 'Ping', cspviolationreport: 'CSPViolationReport', preflight: 'Preflight', other: 'Other',
};

export class RobotsDomain implements DomainHandler {
  constructor(
    private readonly gate: ExplainingGate,
    private readonly clients: ReadonlySet<Client>,
  ) {}

  async handle(client: Client, key: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    switch (method) {
      case 'Robots.enable':
        client.robots.add(key);
        return {};
      case 'Robots.disable':
        client.robots.delete(key);
        return {};
      case 'Robots.explain': {
        const url = params.url;
        if (typeof url !== 'string') throw new InvalidParams('Robots.explain: url: string value expected');
        let d: Decision;
        try {
          d = await this.gate.check(url);
        } catch (err) {
          throw new InvalidParams(`Robots.explain: ${(err as Error).message}`);
        }
        return explanation(d, this.gate.productToken);
      }
      default:
        throw Object.assign(new Error(`'${method}' wasn't found`), { protocolCode: -32601 });
    }
  }

  /** Sends `Robots.requestBlocked` to every session that enabled the domain and sees `entry`'s target. */
  blocked(entry: TargetRequest): void {
    let params: Record<string, unknown> | null = null;
    for (const client of this.clients) {
      for (const key of client.robots) {
        const target = client.targetOf(key);
        if (target !== null && target !== entry.targetId && target !== entry.frameId) continue;
        params ??= this.event(entry);
        client.eventOn(key, 'Robots.requestBlocked', params);
      }
    }
  }

  private event(e: TargetRequest): Record<string, unknown> {
    const why = e.decision
      ? explanation(e.decision, this.gate.productToken)
      : { allowed: false, reason: 'gate-error', rule: null, group: null, robotsUrl: null, robotsStatus: null, sha256: null, fetchedAt: null };
    return {
      ...why,
      url: e.url,
      requestId: e.requestId ?? null,
      frameId: e.frameId ?? null,
      targetId: e.targetId,
      method: e.method,
      type: TYPES[e.resourceType] ?? e.resourceType,
      isNavigation: e.isNavigation,
      redirectedFrom: e.redirectedFrom,
      errorText: 'net::ERR_BLOCKED_BY_CLIENT',
      ...(e.error ? { error: e.error.message } : {}),
      // Seconds since the epoch, as Network's wallTime.
      wallTime: Date.parse(e.at) / 1000,
    };
  }
}
