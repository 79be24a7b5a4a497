// TDMRep (W3C TDM Reservation Protocol, community group final report): `/.well-known/tdmrep.json`
// is an array of `{ location, "tdm-reservation": 0|1, "tdm-policy"?: URL }`; the first rule whose
// location matches the path applies. A location is a path pattern where `*` matches any run of
// characters; without `*` it matches that path exactly (and, ending in `/`, everything below).

/** One rule of a tdmrep.json file. */
export interface TdmRepRule {
  readonly location: string;
  /** 1: TDM rights reserved; 0: not reserved. */
  readonly reservation: 0 | 1;
  readonly policy?: string;
}

export interface TdmRepFile {
  readonly rules: readonly TdmRepRule[];
  /** Entries that were not valid rules (skipped), with why. */
  readonly problems: readonly string[];
}

/** Parse a tdmrep.json body. Never throws: a file that is not a JSON array has no rules and one problem. */
export function parseTdmRep(text: string): TdmRepFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { rules: [], problems: [`not JSON: ${(err as Error).message}`] };
  }
  if (!Array.isArray(data)) return { rules: [], problems: ['not a JSON array of rules'] };
  const rules: TdmRepRule[] = [];
  const problems: string[] = [];
  data.forEach((entry, i) => {
    const e = entry as Record<string, unknown> | null;
    const location = e?.location;
    const reservation = e?.['tdm-reservation'];
    if (typeof location !== 'string' || (reservation !== 0 && reservation !== 1)) {
      problems.push(`rule ${i + 1}: needs a string "location" and "tdm-reservation" 0 or 1`);
      return;
    }
    const policy = typeof e!['tdm-policy'] === 'string' ? (e!['tdm-policy'] as string) : undefined;
    rules.push({ location, reservation, ...(policy !== undefined ? { policy } : {}) });
  });
  return { rules, problems };
}

/** The first rule whose location matches `path` (path and query of the document URL). */
export function tdmRepRuleFor(file: TdmRepFile, path: string): TdmRepRule | undefined {
  const bare = path.split('?')[0]!;
  return file.rules.find((r) => locationMatches(r.location, bare));
}

function locationMatches(location: string, path: string): boolean {
  if (!location.includes('*')) return path === location || (location.endsWith('/') && path.startsWith(location));
  // Greedy piecewise match, linear in the path (no RegExp built from site input).
  const pieces = location.split('*');
  if (!path.startsWith(pieces[0]!)) return false;
  let pos = pieces[0]!.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const at = path.indexOf(pieces[i]!, pos);
    if (at < 0) return false;
    pos = at + pieces[i]!.length;
  }
  const tail = pieces[pieces.length - 1]!;
  return tail === '' || (path.length - tail.length >= pos && path.endsWith(tail));
}
