// Counts in the CLI's English: "1 host", "2 hosts" (a user read "1 hosts waiting").

/** `n` and the noun, singular when n is 1: `count(1, 'host')` → "1 host"; an irregular plural
 *  can be given (`count(2, 'policy change', 'policy changes')`). */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
