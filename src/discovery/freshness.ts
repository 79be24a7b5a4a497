// Freshness by sampling: how far a host's <lastmod> claims can be believed. For the URLs drawn
// into the sample (a seeded fraction, see DiscoverOptions.sampleFraction), each claim is put to
// what the fetch showed: against an earlier run's fetch of the same URL (ETag, else content
// sha256: did it change since, as the claim says?), else against the response's Last-Modified.
// The answer is a per-host ratio, reported; it never makes the crawl skip anything.
import type { AttemptRow, SitemapClaims } from '../audit/types.js';

/** How a claim was checked. */
export type FreshnessEvidence = 'etag' | 'content-hash' | 'last-modified' | 'unparseable';

export interface HostReliability {
  readonly host: string;
  /** Sampled URLs fetched with a 2xx in the run. */
  readonly sampled: number;
  /** Of those, claims that could be checked (a lastmod, and some evidence to put it to). */
  readonly checked: number;
  readonly agree: number;
  /** agree / checked; null when nothing could be checked. */
  readonly reliability: number | null;
  readonly byEvidence: Readonly<Partial<Record<FreshnessEvidence, { checked: number; agree: number }>>>;
  /** The first few claims that did not hold, for a human to look at. */
  readonly disagreements: readonly { url: string; lastmod: string; evidence: FreshnessEvidence; observed: string }[];
}

/** A date-only lastmod (`2024-05-01`) names a day in an unknown time zone: a Last-Modified
 *  within 36 h of its midnight UTC agrees. A full timestamp gets 2 h for clock and rounding. */
const DATE_ONLY_SLACK_MS = 36 * 3_600_000;
const TIMESTAMP_SLACK_MS = 2 * 3_600_000;
const MAX_EXAMPLES = 5;

type Row = Pick<AttemptRow, 'runId' | 'url' | 'host' | 'startedAt' | 'outcome' | 'status' | 'contentSha256' | 'headers' | 'kind' | 'sitemap'>;

const answered = (r: Row) => r.status !== null && r.status >= 200 && r.status < 300 && (r.outcome === 'fetched' || r.outcome === 'overridden') && r.kind !== 'sitemap';
const claimsOf = (r: Row): SitemapClaims | undefined => (r.sitemap && 'source' in r.sitemap ? r.sitemap : undefined);

/**
 * Per-host lastmod reliability of run `runId`, from audit rows (that run's and earlier ones').
 * @param rows attempt rows in any order; rows of other runs are the earlier evidence.
 */
export function lastmodReliability(rows: readonly Row[], runId: string): HostReliability[] {
  const history = new Map<string, Row[]>();
  for (const r of rows) {
    if (!answered(r)) continue;
    let h = history.get(r.url);
    if (!h) history.set(r.url, (h = []));
    h.push(r);
  }
  const hosts = new Map<string, { sampled: number; checked: number; agree: number; byEvidence: Partial<Record<FreshnessEvidence, { checked: number; agree: number }>>; disagreements: HostReliability['disagreements'][number][] }>();
  for (const r of rows) {
    const c = claimsOf(r);
    if (r.runId !== runId || !c?.sampled || !answered(r)) continue;
    let h = hosts.get(r.host);
    if (!h) hosts.set(r.host, (h = { sampled: 0, checked: 0, agree: 0, byEvidence: {}, disagreements: [] }));
    h.sampled++;
    if (c.lastmod === undefined) continue;
    const verdict = check(c.lastmod, r, history.get(r.url) ?? []);
    if (verdict === undefined) continue;
    h.checked++;
    const e = (h.byEvidence[verdict.evidence] ??= { checked: 0, agree: 0 });
    e.checked++;
    if (verdict.agree) {
      h.agree++;
      e.agree++;
    } else if (h.disagreements.length < MAX_EXAMPLES) h.disagreements.push({ url: r.url, lastmod: c.lastmod, evidence: verdict.evidence, observed: verdict.observed });
  }
  return [...hosts].map(([host, h]) => ({ host, ...h, reliability: h.checked > 0 ? h.agree / h.checked : null })).sort((a, b) => (a.host < b.host ? -1 : 1));
}

function check(lastmod: string, row: Row, history: readonly Row[]): { agree: boolean; evidence: FreshnessEvidence; observed: string } | undefined {
  const claimed = Date.parse(lastmod);
  if (!Number.isFinite(claimed)) return { agree: false, evidence: 'unparseable', observed: 'a lastmod that is no date' };
  const at = Date.parse(row.startedAt);
  // The latest answered fetch of this URL in an earlier run.
  let earlier: Row | undefined;
  for (const h of history) if (h.runId !== row.runId && h.startedAt < row.startedAt && (!earlier || h.startedAt > earlier.startedAt)) earlier = h;
  if (earlier) {
    const before = earlier.headers?.etag;
    const now = row.headers?.etag;
    let changed: boolean | undefined;
    let evidence: FreshnessEvidence | undefined;
    if (before && now) {
      changed = weak(before) !== weak(now);
      evidence = 'etag';
    } else if (earlier.contentSha256 && row.contentSha256) {
      changed = earlier.contentSha256 !== row.contentSha256;
      evidence = 'content-hash';
    }
    if (changed !== undefined && evidence !== undefined) {
      const claimsChange = claimed > Date.parse(earlier.startedAt);
      const agree = claimsChange === changed && claimed <= at + TIMESTAMP_SLACK_MS;
      return { agree, evidence, observed: `${changed ? 'changed' : 'unchanged'} since ${earlier.startedAt}` };
    }
  }
  const lm = row.headers?.['last-modified'];
  const modified = lm ? Date.parse(lm) : NaN;
  if (!Number.isFinite(modified)) return undefined;
  const slack = /^\d{4}-\d{2}-\d{2}$/.test(lastmod.trim()) ? DATE_ONLY_SLACK_MS : TIMESTAMP_SLACK_MS;
  return { agree: Math.abs(claimed - modified) <= slack, evidence: 'last-modified', observed: `Last-Modified ${lm}` };
}

/** The latest run whose rows carry sitemap claims, if any. */
export function latestClaimsRun(rows: readonly Row[]): string | undefined {
  let best: Row | undefined;
  for (const r of rows) if (claimsOf(r) && (!best || r.startedAt > best.startedAt)) best = r;
  return best?.runId;
}

/** RFC 9110 §8.8.3.2: a weak comparison ignores the W/ prefix. */
const weak = (etag: string) => etag.replace(/^W\//, '');
