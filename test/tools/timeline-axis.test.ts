// The report timeline's axis: distinct, round tick labels on any span; a lone request a fraction of it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMs } from '../../src/report/format.js';
import { timelineAxis } from '../../src/report/timeline-axis.js';

describe('timelineAxis', () => {
  it('gives a few-millisecond span distinct labels, not +0 ms, +0 ms, +1 ms, +1 ms', () => {
    const a = timelineAxis(2, 0.3);
    expect(a.ticks.map((t) => `+${formatMs(t)}`)).toEqual(['+0 ms', '+2 ms', '+4 ms', '+6 ms', '+8 ms', '+10 ms']);
  });

  it('rounds the end up to a whole step', () => {
    expect(timelineAxis(747, 70)).toEqual({ spanMs: 800, ticks: [0, 200, 400, 600, 800] });
    expect(timelineAxis(56_400, 100).ticks).toEqual([0, 20_000, 40_000, 60_000]);
  });

  it('leaves a lone request a quarter of the axis at most', () => {
    expect(timelineAxis(40, 40)).toEqual({ spanMs: 200, ticks: [0, 50, 100, 150, 200] });
  });

  it('on any span: covers it, 2 to 6 ticks, distinct labels, steps of 1, 2 or 5 × 10^k ms', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e10, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (span, share) => {
        const a = timelineAxis(span, span * share);
        expect(a.spanMs).toBeGreaterThanOrEqual(span);
        expect(a.ticks.length).toBeGreaterThanOrEqual(2);
        expect(a.ticks.length).toBeLessThanOrEqual(6);
        expect(a.ticks.at(-1)).toBe(a.spanMs);
        const step = a.ticks[1]! - a.ticks[0]!;
        expect(step / 10 ** Math.floor(Math.log10(step) + 1e-9)).toBeOneOf([1, 2, 5]);
        const labels = a.ticks.map((t) => formatMs(t));
        expect(new Set(labels).size).toBe(labels.length);
      }),
      { numRuns: 500 },
    );
  });
});
