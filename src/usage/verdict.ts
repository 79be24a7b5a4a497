// Combining signals into one verdict per purpose.
import { PURPOSES, type Purpose, type UsageSignal, type UsageValue, type UsageVerdict } from './types.js';

const TDM_RANK: Readonly<Record<string, number>> = { 'tdmrep-file': 3, 'tdmrep-header': 2, 'tdmrep-meta': 1 };

/**
 * One verdict per purpose from every signal: `reserved` if any signal that counts reserves it, else
 * `allowed` if one allows it, else `unknown` (aipref vocab draft: where preferences combine, "n"
 * wins). TDMRep's own precedence holds first: only its highest source present counts (the file,
 * then the header, then HTML meta; TDMRep §"Priority"), so a header cannot undo the file; a
 * source that says nothing resets nothing.
 * @returns a new verdict; for no signal at all, one shared frozen verdict (every purpose `unknown`).
 */
export function usageVerdict(signals: readonly UsageSignal[]): UsageVerdict {
  if (signals.length === 0) return NOTHING_SAID;
  let tdmTop = 0;
  for (const s of signals) tdmTop = Math.max(tdmTop, TDM_RANK[s.kind] ?? 0);
  const counted = signals.filter((s) => !(s.kind in TDM_RANK) || TDM_RANK[s.kind] === tdmTop);
  const purposes = {} as Record<Purpose, { verdict: UsageValue; signals: UsageSignal[] }>;
  for (const p of PURPOSES) {
    const speaking = counted.filter((s) => s.purposes[p] !== undefined);
    const verdict: UsageValue = speaking.some((s) => s.purposes[p] === 'reserved')
      ? 'reserved'
      : speaking.length > 0
        ? 'allowed'
        : 'unknown';
    // The signals that decided: the reserving ones for `reserved`, the allowing ones for `allowed`.
    const deciding = verdict === 'unknown' ? [] : speaking.filter((s) => s.purposes[p] === (verdict === 'reserved' ? 'reserved' : 'allowed'));
    purposes[p] = { verdict, signals: deciding };
  }
  return { purposes, rule: 'any-reserved-wins', signals: [...signals] };
}

/** The verdict where no signal speaks (most documents): one frozen object, so a crawl neither
 *  builds nor serializes it per document (see `verdictJson`). */
const NOTHING_SAID: UsageVerdict = deepFreeze({
  purposes: Object.fromEntries(PURPOSES.map((p) => [p, { verdict: 'unknown', signals: [] }])) as unknown as UsageVerdict['purposes'],
  rule: 'any-reserved-wins',
  signals: [],
});
const NOTHING_SAID_JSON = JSON.stringify(NOTHING_SAID);

/** `JSON.stringify(verdict)`, without the work for the verdict where nothing was said. */
export function verdictJson(verdict: UsageVerdict): string {
  return verdict === NOTHING_SAID ? NOTHING_SAID_JSON : JSON.stringify(verdict);
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** `purpose`'s verdict is `reserved`: what a crawl with `--purpose` does not fetch or keep. */
export function isReserved(verdict: UsageVerdict, purpose: Purpose): boolean {
  return verdict.purposes[purpose].verdict === 'reserved';
}
