// Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date (§5.6.7), read strictly. Date.parse
// is no parser for it: it reads "-5", "5.5" or "1" as dates in 2001, which made a 429 with such a
// value a back-off of 0 ms and the crawl asked again at once.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
const IMF = /^(?:mon|tue|wed|thu|fri|sat|sun), (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
// obsolete RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
const RFC850 = /^[a-z]+day, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
// obsolete asctime: Sun Nov  6 08:49:37 1994
const ASCTIME = /^(?:mon|tue|wed|thu|fri|sat|sun) ([a-z]{3}) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** An HTTP-date as ms since the epoch; undefined when it is not one. */
export function parseHttpDate(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  let day: string, mon: string, year: number, time: string[];
  let r: RegExpExecArray | null;
  if ((r = IMF.exec(v))) {
    [day, mon, year, time] = [r[1]!, r[2]!, Number(r[3]), [r[4]!, r[5]!, r[6]!]];
  } else if ((r = RFC850.exec(v))) {
    // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
    const yy = Number(r[3]);
    year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
    [day, mon, time] = [r[1]!, r[2]!, [r[4]!, r[5]!, r[6]!]];
  } else if ((r = ASCTIME.exec(v))) {
    [day, mon, year, time] = [r[2]!.trim(), r[1]!, Number(r[6]), [r[3]!, r[4]!, r[5]!]];
  } else return undefined;
  const month = MONTHS.indexOf(mon);
  const [d, hh, mm, ss] = [Number(day), ...time.map(Number)] as [number, number, number, number];
  if (month < 0 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const at = Date.UTC(year, month, d, hh, mm, ss);
  // 31 Feb and the like roll over into the next month: not a date.
  if (new Date(at).getUTCDate() !== d) return undefined;
  return at;
}

/** The back-off a Retry-After value asks for, in ms from `now` (0 for a date already past);
 *  undefined when absent or not a valid value (negative, fractional, garbage): the caller's
 *  default back-off applies then. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = parseHttpDate(v);
  if (at === undefined) return undefined;
  return Math.max(0, at - now);
}
