// Retry-After values a hostile or broken server sends with a 429/503.
import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/politeness/retry-after.js';

const now = Date.UTC(2026, 10, 30, 10, 0, 0);

describe('retryAfterMs on hostile values', () => {
  it('reads delay-seconds and the three HTTP-date forms', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Mon, 30 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Monday, 30-Nov-26 10:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Mon Nov 30 10:01:00 2026', now)).toBe(60_000);
  });

  it('a date in the past is 0: retry now (RFC 9110 §10.2.3)', () => {
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:00 GMT', now)).toBe(0);
  });

  it('negative, fractional, bare numbers-as-dates and garbage are unreadable (the default back-off applies), not 0', () => {
    // Date.parse reads each of these as a day in 2001, which made the back-off 0 ms.
    for (const v of ['-5', '5.5', '1e3', 'garbage 2', ' ', 'Mon, 31 Feb 2026 10:00:00 GMT', 'Mon, 30 Nov 2026 25:00:00 GMT', '0x10', '+5']) {
      expect(retryAfterMs(v, now), v).toBeUndefined();
    }
  });

  it('a huge delay stays a number (the crawl caps it), never NaN or negative', () => {
    const ms = retryAfterMs('99999999999999999999', now)!;
    expect(Number.isFinite(ms) && ms > 0).toBe(true);
  });
});
