// Linear-growth checks for hostile input shapes: the same work at 1x, 10x and 100x size, each timed as
// the best of several runs after a collection. The bound is set by what this machine shows for linear
// work: a 100x input also leaves the CPU caches (a 5 KB file fits in them, a 500 KB one does not) and
// takes up to about 10x more per byte, so 100x input may take up to 2,000x the time; a quadratic cost
// takes 10,000x (Sitemap lines de-duplicated with Array.includes: 16,000x; --resolve copied per entry:
// 6,700x), so it fails by a wide margin whatever the load.
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'vitest';

v8.setFlagsFromString('--expose-gc');
/** Collect before each timed run, so no run pays for the garbage of the one before. */
const gc = vm.runInNewContext('gc') as () => void;

function best(work: () => void, runs: number): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    gc();
    const t0 = performance.now();
    work();
    min = Math.min(min, performance.now() - t0);
  }
  return Math.max(min, 0.01);
}

/** Runs `work(input)` for inputs built at `base`, 10x and 100x `base`; expects 100x the input to take
 *  under 2,000x the time (see above). Both ratios are in the failure message. */
export function expectLinearGrowth<T>(label: string, build: (size: number) => T, work: (input: T) => void, base: number): void {
  const inputs = [base, base * 10, base * 100].map(build);
  for (const input of inputs) work(input); // warm-up: compile every code path before timing
  const t1 = best(() => work(inputs[0]!), 9);
  const t10 = best(() => work(inputs[1]!), 5);
  const t100 = best(() => work(inputs[2]!), 5);
  const x10 = Math.round(t10 / t1);
  const x100 = Math.round(t100 / t1);
  expect(x100, `${label}: 10x input took ${x10}x the time, 100x took ${x100}x (${t1.toFixed(3)} / ${t10.toFixed(2)} / ${t100.toFixed(2)} ms)`).toBeLessThan(2_000);
}
