// RobotsGate.backoffUntil: the back-off a door of one's own applies after a 429/503, on the gate's
// terms, from what a caller has in hand (fetch's headers.get() gives null for an absent header,
// Node's IncomingMessage a list for a repeated one).
import { afterAll, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';

const gate = new RobotsGate({ userAgent: 'BackoffBot/1.0', defaultBackoffMs: 4_000, maxBackoffMs: 60_000 });
afterAll(() => gate.close());
const T = Date.UTC(2026, 11, 3, 12, 0, 0);

test('Retry-After seconds and dates are read strictly; the rest takes the gate\'s defaultBackoffMs', () => {
  expect(gate.backoffUntil('2', T)).toBe(T + 2_000);
  expect(gate.backoffUntil(' 2 ', T)).toBe(T + 2_000);
  expect(gate.backoffUntil('Thu, 03 Dec 2026 12:00:30 GMT', T)).toBe(T + 30_000);
  for (const bad of ['2.5', '-1', 'abc', '']) expect(gate.backoffUntil(bad, T)).toBe(T + 4_000);
  // maxBackoffMs caps it.
  expect(gate.backoffUntil('99999999', T)).toBe(T + 60_000);
});

test('what headers give for an absent or repeated header, and no endedAt, are taken as they come', () => {
  expect(gate.backoffUntil(null, T)).toBe(T + 4_000);
  expect(gate.backoffUntil(undefined, T)).toBe(T + 4_000);
  expect(gate.backoffUntil(['3', '9'], T)).toBe(T + 3_000);
  expect(gate.backoffUntil(2 as unknown as string, T)).toBe(T + 4_000);
  const before = Date.now();
  const until = gate.backoffUntil('1');
  expect(until).toBeGreaterThanOrEqual(before + 1_000);
  expect(until).toBeLessThanOrEqual(Date.now() + 1_000);
  expect(() => gate.backoffUntil('1', Number.NaN)).toThrow(TypeError);
});
