// The report's sitemap section: each sitemap read (what it gave, what was dropped and why, the
// cap that stopped it) and each host's lastmod reliability over the sampled URLs. Pure: no I/O,
// no Node built-ins.
import type { AttemptRow, SitemapRead } from '../audit/types.js';
import { lastmodReliability, latestClaimsRun } from '../discovery/freshness.js';
import { esc } from './escape.js';

/** Sitemaps listed at most. */
const MAX_LISTED = 200;

export function sitemapsSection(attempts: readonly AttemptRow[]): string {
  const sitemaps = attempts.filter((a) => a.kind === 'sitemap');
  if (sitemaps.length === 0) return '';
  const rows = sitemaps
    .slice(0, MAX_LISTED)
    .map((s) => {
      const m = s.sitemap as SitemapRead | null | undefined;
      const dropped = m ? Object.entries(m.dropped).map(([k, v]) => `${k} ${v}`).join(', ') : '';
      return (
        `<tr><td>${esc(s.url)}</td><td>${esc(s.outcome)}</td><td class="num">${s.status ?? '-'}</td><td>${esc(m?.format ?? '-')}${m?.gzip ? ' (gzip)' : ''}</td>` +
        `<td class="num">${m?.urls ?? '-'}</td><td class="num">${m?.sitemaps ?? '-'}</td><td>${esc(dropped || '-')}</td><td>${esc(m?.limit ?? '-')}</td><td>${esc(m?.advertisedBy ?? '-')}</td></tr>`
      );
    })
    .join('');
  const runId = latestClaimsRun(attempts);
  const hosts = runId ? lastmodReliability(attempts, runId) : [];
  const reliability = hosts
    .map(
      (h) =>
        `<tr><td>${esc(h.host)}</td><td class="num">${h.sampled}</td><td class="num">${h.checked}</td><td class="num">${h.agree}</td>` +
        `<td class="num">${h.reliability === null ? '-' : `${Math.round(h.reliability * 100)} %`}</td>` +
        `<td>${esc(Object.entries(h.byEvidence).map(([k, v]) => `${k} ${v!.agree}/${v!.checked}`).join(', ') || '-')}</td></tr>`,
    )
    .join('');
  return (
    `<h2>Sitemaps</h2><section id="sitemaps"><p class="sub">Sitemaps are hints: each was fetched through the gate (decided by its own origin's robots.txt, at its host's pace), and the URLs it listed were crawled only as robots.txt allowed.</p>` +
    `<div class="scroll"><table id="sitemap-reads"><thead><tr><th>sitemap</th><th>outcome</th><th class="num">status</th><th>format</th><th class="num">URLs</th><th class="num">sitemaps</th><th>dropped</th><th>limit</th><th>advertised by</th></tr></thead><tbody>${rows}</tbody></table></div>` +
    (sitemaps.length > MAX_LISTED ? `<p class="empty">${sitemaps.length - MAX_LISTED} more sitemaps are not listed.</p>` : '') +
    (hosts.length
      ? `<h3>lastmod reliability (run ${esc(runId!)})</h3><p class="sub">Sampled claims that agree with what the fetch showed (an earlier run's ETag or content hash, else Last-Modified). Never used to skip a URL.</p>` +
        `<div class="scroll"><table id="lastmod-reliability"><thead><tr><th>host</th><th class="num">sampled</th><th class="num">checked</th><th class="num">agree</th><th class="num">reliability</th><th>evidence</th></tr></thead><tbody>${reliability}</tbody></table></div>`
      : '') +
    '</section>'
  );
}
