// When each host last saw a request from the earlier runs in --out, and how long it must be left
// alone from then: the interval those runs kept for it. This run's first request to a host is its
// robots.txt request, taken at the floor before the Crawl-delay is known, so the Crawl-delay the
// earlier run knew must come from the audit (its policy text), or that request comes too early.
// So must a 429/503 back-off the earlier run was under (Retry-After): Ctrl-C during one, then
// --resume, sent the next requests after the interval alone.
import type { AuditReader, RunSummary } from '../audit/read-types.js';
import { crawlerIdentity, tokenInForce } from '../gate/identity.js';
import { backoffUntil } from '../gate/pace.js';
import { DEFAULT_BACKOFF_MS, MAX_BACKOFF_MS } from '../crawl/job-options.js';
import { parseRobotsTxt } from '../parser/index.js';
import type { WaitReason } from '../politeness/types.js';

/** One host's seed: the limiter and frontier count a response that ended at `endedAt`. */
export interface HostSeed {
  /** ms since epoch. */
  readonly endedAt: number;
  /** The frontier's interval (floor with jitter) before the host's latest row, ms; null if none. */
  readonly intervalMs: number | null;
  /** No request to the host before this (ms since epoch): `endedAt` + the earlier run's interval,
   *  or the end of the 429/503 back-off it was under, whichever is later. */
  readonly notBefore: number;
  /** What `notBefore` came from: `backoff` when the 429/503 back-off ends it, else the largest
   *  term of the earlier run's interval (`crawl-delay`, `override`, `floor`). */
  readonly notBeforeReason: WaitReason;
}

export interface ResumeSeeds {
  readonly seeds: Map<string, HostSeed>;
  /** Runs that recorded no end (killed) whose hosts are seeded from when they were gone at the
   *  latest (ms since epoch), with how many hosts that still holds back (an old one: none, not listed). */
  readonly unfinished: readonly { runId: string; hosts: number; diedBy: number }[];
}

/**
 * Read the seeds from an open audit.
 * @param listHosts hosts (`URL.host`) of this run's list: a killed last run may have had a robots.txt
 *   request in flight to any of them, which left nothing in the audit.
 * @param now ms since epoch: this run holds the audit's lock, so no earlier run is sending any more.
 */
export function readResumeSeeds(reader: AuditReader, listHosts: Iterable<string>, now: number): ResumeSeeds {
  const runs = reader.runs().sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  const ends = new Map<string, { endedAt: number; intervalMs: number | null }>(reader.lastSent());
  const killed: { runId: string; hosts: Set<string>; diedBy: number }[] = [];
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    if (run.status !== 'unfinished') continue;
    // A run killed (SIGKILL, a crash) wrote no row for the requests it had in flight, and their
    // ends are unknown: the server saw each end when the connection closed, at the kill. The last
    // moment it is known alive (its latest row) is no bound: a held response runs on past it.
    // What bounds the kill is the next run's start (it took the lock, so the killed process was
    // gone), or now for the last run. Its hosts are seeded from that.
    const next = runs[i + 1];
    const diedBy = next !== undefined ? Date.parse(next.startedAt) : now;
    if (!Number.isFinite(diedBy)) continue;
    const hosts = reader.runHosts(run.runId);
    if (next === undefined) for (const h of listHosts) hosts.add(h);
    for (const h of hosts) {
      const prev = ends.get(h);
      if (prev === undefined || prev.endedAt < diedBy) ends.set(h, { endedAt: diedBy, intervalMs: prev?.intervalMs ?? null });
    }
    killed.push({ runId: run.runId, hosts, diedBy });
  }
  const policies = reader.lastPolicies();
  // A robots.txt response is an end too, though it leaves no attempt row: a run stopped while its
  // first page waited out the file's Crawl-delay left only the policy (fetched_at: when its
  // response ended), and the resumed run's robots.txt request must keep that interval from it.
  for (const [host, p] of policies) {
    const prev = ends.get(host);
    if (prev === undefined || prev.endedAt < p.at) ends.set(host, { endedAt: p.at, intervalMs: prev?.intervalMs ?? null });
  }
  const backoffs = reader.lastBackoffs();
  const byId = new Map(runs.map((r) => [r.runId, r]));
  const parsed = new Map<string, number | undefined>();
  const seeds = new Map<string, HostSeed>();
  for (const [host, end] of ends) {
    const p = policies.get(host);
    const run = (p?.runId != null ? byId.get(p.runId) : undefined) ?? runs.at(-1);
    let ms = Math.max(end.intervalMs ?? 0, num(run?.options.minIntervalMs) ?? 0);
    let reason: WaitReason = 'floor';
    if (p !== undefined && run !== undefined) {
      const key = `${p.sha256} ${run.runId}`;
      if (!parsed.has(key)) parsed.set(key, crawlDelayOf(reader, p.sha256, run));
      const delay = parsed.get(key);
      // Capped as the crawl caps it: over --max-crawl-delay the host is skipped or clamped to it.
      const cap = num(run.options.maxCrawlDelaySeconds) ?? 60;
      const delayMs = delay === undefined ? 0 : Math.min(delay, cap) * 1000;
      if (delayMs > ms) [ms, reason] = [delayMs, 'crawl-delay'];
      const overrideMs = p.overridden ? (num(run.options.overrideIntervalMs) ?? 0) : 0;
      if (overrideMs > ms) [ms, reason] = [overrideMs, 'override'];
    }
    let notBefore = end.endedAt + Math.ceil(ms);
    const b = backoffs.get(host);
    if (b !== undefined) {
      // As the crawl reads it (CrawlJob): Retry-After strictly, counted from that response's end,
      // else the run's default back-off, cut to its longest.
      const o = byId.get(b.runId)?.options;
      const until = backoffUntil(b.retryAfter, b.endedAt, num(o?.defaultBackoffMs) ?? DEFAULT_BACKOFF_MS, num(o?.maxBackoffMs) ?? MAX_BACKOFF_MS);
      if (Math.ceil(until) > notBefore) [notBefore, reason] = [Math.ceil(until), 'backoff'];
    }
    seeds.set(host, { endedAt: end.endedAt, intervalMs: end.intervalMs, notBefore, notBeforeReason: reason });
  }
  const unfinished = killed
    .map((k) => ({ runId: k.runId, diedBy: k.diedBy, hosts: [...k.hosts].filter((h) => seeds.get(h)!.notBefore > now).length }))
    .filter((k) => k.hosts > 0);
  return { seeds, unfinished };
}

/** The Crawl-delay (s) the policy `sha256` gives `run`'s crawler, as the gate reads it; undefined
 *  when none, or the text or the run's identity cannot be read. */
function crawlDelayOf(reader: AuditReader, sha256: string, run: RunSummary): number | undefined {
  const policy = reader.policy(sha256);
  if (policy === undefined) return undefined;
  try {
    const given = Array.isArray(run.options.productToken) && run.options.productToken.length > 0 ? run.options.productToken : undefined;
    const { tokens } = crawlerIdentity(run.userAgent, given);
    const robots = parseRobotsTxt(policy.body, { url: policy.finalUrl });
    return robots.policyFor(tokenInForce(robots, tokens)).crawlDelay;
  } catch {
    return undefined;
  }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}
