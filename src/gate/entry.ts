// A robots.txt record made ready for deciding: parsed once, its stamp built once, and cut down to
// what this gate's product token needs, since a broad crawl caches 100,000 of them.
import { parseRobotsTxt } from '../parser/index.js';
import type { Policy } from '../parser/policy.js';
import type { RobotsTxt } from '../parser/types.js';
import { robotsUrlOf } from '../fetcher/url.js';
import { tokenInForce } from './identity.js';
import type { GatePolicyRecord, PolicyStamp } from './types.js';

/**
 * What the gate holds per origin: the rules of the groups that apply, not the file's text, model or
 * other groups; the text stays in the store (and the audit).
 */
export interface Entry {
  /** The record without its body text. */
  readonly record: GatePolicyRecord;
  /** The rules that apply to `token`, apart from the file; null unless the record is parsed. The
   *  class, not the AgentPolicy interface: the gate matches a URL it has already scanned in place. */
  readonly policy: Policy | null;
  /** The parsed file, kept only when it has usage lines (Content-Usage, Content-Signal): most have none. */
  readonly usage: RobotsTxt | null;
  readonly stamp: PolicyStamp;
  readonly expiresAt: number;
  readonly stale: boolean;
  readonly crawlDelaySeconds: number | undefined;
  /** The product token this origin's rules are matched against: the first fallback token its file names. */
  readonly token: string;
}

/**
 * The entry for `record`, deciding for the first of `tokens` its file names.
 * @param maxBytes the gate's body cap, applied again at parse.
 */
export function entryFor(record: GatePolicyRecord, tokens: readonly string[], maxBytes: number): Entry {
  let robots: RobotsTxt | null = null;
  if (record.kind === 'parsed') {
    robots = parseRobotsTxt(record.body ?? '', { maxBytes, url: record.finalUrl });
  }
  const stale = record.stale === true;
  const stamp: PolicyStamp = Object.freeze({
    robotsUrl: record.robotsUrl || robotsUrlOf(record.origin),
    finalUrl: record.finalUrl,
    status: record.status,
    sha256: record.sha256,
    fetchedAt: new Date(record.bodyFetchedAt ?? record.fetchedAt).toISOString(),
    expiresAt: new Date(record.expiresAt).toISOString(),
    // Copies: a sitemap URL is a slice of the body, and a slice may keep the whole body alive.
    sitemaps: Object.freeze(robots ? robots.sitemaps.map(ownString) : []),
    ...(record.html ? { html: true } : {}),
    ...(record.truncated ? { truncated: true } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(stale && record.lastStatus !== undefined ? { refetchStatus: record.lastStatus } : {}),
  });
  // §2.2.1 with fallback tokens (`['MyBot-News', 'MyBot']`): the first token a group names decides,
  // as Googlebot-News falls back to Googlebot's group; only when none is named do `*` groups apply.
  const token = tokenInForce(robots, tokens);
  // policyFor's AgentPolicy is always a Policy (a detached one: the file's model is not kept).
  const policy = robots === null ? null : (robots.policyFor(token) as Policy);
  const { body: _body, ...meta } = record;
  return {
    record: meta,
    policy,
    usage: robots !== null && robots.usageLines.length > 0 ? robots : null,
    stamp,
    expiresAt: record.expiresAt,
    stale,
    crawlDelaySeconds: policy?.crawlDelay,
    token,
  };
}

/** The same record (an entry keeps a copy without the body, so identity cannot tell). */
export function sameRecord(a: GatePolicyRecord, b: GatePolicyRecord): boolean {
  return a.origin === b.origin && a.fetchedAt === b.fetchedAt && a.expiresAt === b.expiresAt && a.sha256 === b.sha256 && a.kind === b.kind && a.stale === b.stale;
}

/** `s` as a string of its own, not a view into a larger one: a JSON round trip copies exactly. */
function ownString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
