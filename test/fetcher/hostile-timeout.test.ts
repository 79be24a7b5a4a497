// fetchRobotsTxt with a timeout no Node timer can hold: a caller's mistake, refused, never a
// healthy server reported unreachable (a NaN or overlong timer fires at once).
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { fetchRobotsTxt, MAX_TIMEOUT_MS } from '../../src/fetcher/robots-fetcher.js';

describe('fetchRobotsTxt timeoutMs', () => {
  for (const timeoutMs of [Number.NaN, 0, -1, MAX_TIMEOUT_MS + 1, Infinity]) {
    it(`${timeoutMs}: RangeError before any request`, async () => {
      const dispatcher = new Agent();
      try {
        await expect(
          fetchRobotsTxt('http://127.0.0.1:9', { dispatcher, userAgent: 'Bot/1.0', timeoutMs, maxBytes: 1000, maxRedirects: 5 }),
        ).rejects.toBeInstanceOf(RangeError);
      } finally {
        await dispatcher.close();
      }
    });
  }
});
