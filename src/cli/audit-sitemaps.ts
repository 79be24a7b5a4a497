// `robots-gate audit DIR --sitemaps`, and the crawl summary's freshness lines: every sitemap
// read (what it gave, what was dropped, the cap that stopped it) and each host's lastmod
// reliability over the sampled URLs.
import type { AuditReader } from '../audit/reader.js';
import type { SitemapRead } from '../audit/types.js';
import { lastmodReliability, latestClaimsRun, type HostReliability } from '../discovery/freshness.js';
import { table } from './text-table.js';

const out = (s: string) => process.stdout.write(s + '\n');
const pct = (r: number | null) => (r === null ? '-' : `${Math.round(r * 100)} %`);


/** Lines for the end of a crawl (text): one per host. Empty when nothing was sampled. */
export function reliabilityText(hosts: readonly HostReliability[]): string {
  if (hosts.length === 0) return '';
  return (
    '\nlastmod reliability (sampled sitemap claims that agree with what the fetch showed; never used to skip)\n' +
    table([
      ['host', 'sampled', 'checked', 'agree', 'reliability', 'evidence'],
      ...hosts.map((h) => [
        h.host,
        h.sampled,
        h.checked,
        h.agree,
        pct(h.reliability),
        Object.entries(h.byEvidence)
          .map(([k, v]) => `${k} ${v!.agree}/${v!.checked}`)
          .join(', ') || (h.sampled > 0 ? 'no lastmod, or nothing to compare with' : ''),
      ]),
    ]) +
    '\n'
  );
}

export function printSitemaps(reader: AuditReader, json: boolean, limit: number): void {
  const rows = reader.attempts();
  const sitemaps = rows.filter((r) => r.kind === 'sitemap');
  const runId = latestClaimsRun(rows);
  const hosts = runId ? lastmodReliability(rows, runId) : [];
  if (json) {
    for (const s of sitemaps) out(JSON.stringify({ type: 'sitemap', runId: s.runId, url: s.url, outcome: s.outcome, status: s.status, reason: s.reason, at: s.startedAt, parentUrl: s.parentUrl, robotsUrl: s.robotsUrl, policySha256: s.policySha256, ...(s.sitemap as SitemapRead | null) }));
    for (const h of hosts) out(JSON.stringify({ type: 'lastmod-reliability', runId, ...h }));
    return;
  }
  if (sitemaps.length === 0) {
    out('no sitemap rows (crawl with --sitemaps to read them)');
    return;
  }
  out(
    table([
      ['sitemap', 'outcome', 'status', 'format', 'urls', 'sitemaps', 'dropped', 'limit', 'run'],
      ...sitemaps.slice(0, limit).map((s) => {
        const m = s.sitemap as SitemapRead | null;
        const dropped = m ? Object.entries(m.dropped).map(([k, v]) => `${k} ${v}`).join(', ') : '';
        return [s.url, s.outcome, s.status, m?.format ?? null, m?.urls ?? null, m?.sitemaps ?? null, dropped || null, m?.limit ?? null, s.runId];
      }),
    ]),
  );
  if (sitemaps.length > limit) out(`… and ${sitemaps.length - limit} more (--limit)`);
  if (runId) {
    out(reliabilityText(hosts).trimEnd() + `\n(run ${runId})`);
    for (const h of hosts) for (const d of h.disagreements) out(`  ${h.host}: ${d.url} claims ${d.lastmod}; ${d.evidence}: ${d.observed}`);
  }
}
