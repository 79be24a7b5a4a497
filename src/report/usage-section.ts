// The report's usage section: what sites said about search, AI input and AI training, per
// purpose, beside (never inside) the access figures. Pure: no I/O, no Node built-ins.
import type { AttemptRow } from '../audit/types.js';
import { PURPOSES } from '../usage/types.js';
import { esc } from './escape.js';

/**
 * What became of a reserved URL's document, from its row: `kept` (saved), `fetched, not kept`
 * (requested, and its response reserved the purpose, or was not saved), `not requested` (nothing
 * was sent: robots.txt or TDMRep reserved it, or access was refused). A URL never requested has
 * no document to keep, which "not kept" alone would leave the reader to guess.
 */
export function documentFate(r: Pick<AttemptRow, 'savedPath' | 'status'>): 'kept' | 'fetched, not kept' | 'not requested' {
  if (r.savedPath) return 'kept';
  return r.status === null ? 'not requested' : 'fetched, not kept';
}

/** Reserved documents listed at most per purpose. */
const MAX_LISTED = 50;

export function usageSection(attempts: readonly AttemptRow[]): string {
  const rows = attempts.filter((a) => a.usage != null && a.kind !== 'tdmrep');
  if (rows.length === 0) return '';
  const counts = PURPOSES.map((p) => {
    const n = { reserved: 0, allowed: 0, unknown: 0 };
    for (const r of rows) n[r.usage!.purposes[p].verdict]++;
    return `<tr><td>${esc(p)}</td><td class="num">${n.reserved}</td><td class="num">${n.allowed}</td><td class="num">${n.unknown}</td></tr>`;
  }).join('');
  const listed = PURPOSES.map((p) => {
    const reserved = rows.filter((r) => r.usage!.purposes[p].verdict === 'reserved');
    if (reserved.length === 0) return '';
    const body = reserved
      .slice(0, MAX_LISTED)
      .map((r) => {
        const by = r.usage!.purposes[p].signals.map((s) => `${s.kind}${s.line ? ` (line ${s.line})` : ''}: ${s.value}`).join('; ');
        return `<tr><td>${esc(r.url)}</td><td>${documentFate(r)}</td><td>${esc(by)}</td></tr>`;
      })
      .join('');
    const more = reserved.length > MAX_LISTED ? `<p class="empty">${reserved.length - MAX_LISTED} more are not listed.</p>` : '';
    return `<h3>Reserved for ${esc(p)}: ${reserved.length}</h3><div class="scroll"><table><thead><tr><th>URL</th><th>document</th><th>signals that decided</th></tr></thead><tbody>${body}</tbody></table></div>${more}`;
  }).join('');
  return (
    `<h2>Usage</h2><section id="usage"><p class="sub">What the sites said may be done with what was fetched (Content-Usage, Content-Signal, X-Robots-Tag, meta robots, TDMRep), per purpose; any reservation wins. Access above is robots.txt's alone.</p>` +
    `<div class="scroll"><table><thead><tr><th>purpose</th><th class="num">reserved</th><th class="num">allowed</th><th class="num">unknown</th></tr></thead><tbody>${counts}</tbody></table></div>${listed}</section>`
  );
}
