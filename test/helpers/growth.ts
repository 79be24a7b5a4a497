// Linear-growth checks for hostile input shapes: the same work at 1x, 10x and 100x size, timed (the
// best of a few runs each, after a warm-up), with bounds generous enough for a loaded 2-core machine
// yet far below what a quadratic cost gives (10x input: 100x time; 100x input: 10,000x time).
import { expect } from 'vitest';

function best(work: () => void, runs: number): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    work();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

/**
 * Runs `work(input)` for inputs built at `base`, 10x and 100x `base`, and expects the time to grow at
 * most 30x and 300x. `base` should make the 1x run take a few ms at least, so that timer noise does not
 * make it look cheaper than it is.
 */
export function expectLinearGrowth<T>(label: string, build: (size: number) => T, work: (input: T) => void, base: number): void {
  const inputs = [base, base * 10, base * 100].map(build);
  work(inputs[0]!); // warm-up: compile the code paths before timing
  const t1 = Math.max(best(() => work(inputs[0]!), 5), 0.05);
  const t10 = best(() => work(inputs[1]!), 3);
  const t100 = best(() => work(inputs[2]!), 2);
  const ratios = { label, x10: Math.round(t10 / t1), x100: Math.round(t100 / t1) };
  expect(ratios.x10, `${label}: 10x input took ${ratios.x10}x the time (${t1.toFixed(2)} ms -> ${t10.toFixed(2)} ms)`).toBeLessThan(30);
  expect(ratios.x100, `${label}: 100x input took ${ratios.x100}x the time (${t1.toFixed(2)} ms -> ${t100.toFixed(2)} ms)`).toBeLessThan(300);
}
