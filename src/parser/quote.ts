// Quoting what a caller passed in an error message: hostile or broken input may be megabytes long,
// and an error message is logged, stored in audit rows and shown to people.

/** Characters of the input kept in a message; the rest is counted, not shown. */
const KEEP = 200;

/**
 * `input` as a JSON string literal, cut after 200 characters with the full length said, e.g.
 * `"http://a.test/xxxx…" (100,032 characters)`.
 */
export function quoteInput(input: string): string {
  if (input.length <= KEEP) return JSON.stringify(input);
  return `${JSON.stringify(input.slice(0, KEEP) + '…')} (${input.length.toLocaleString('en-US')} characters)`;
}
