// The crawl's take loop: asks the frontier for the next item, runs each in the background, sleeps
// until a host opens or something in flight completes, and stops on drain, abort or a failure.
import type { Frontier, TakenItem } from '../politeness/types.js';
import { unlessAborted } from '../politeness/pacer.js';
import { LoopTurns, nextTurn, STEPS_PER_TURN } from './loop-turns.js';

const MAX_TIMER_MS = 2_147_483_647;

export interface TakeLoopOptions {
  readonly frontier: Frontier;
  readonly signal: AbortSignal | undefined;
  /** After the signal aborts, how long (ms) to wait for the items in flight. */
  readonly abortGraceMs: number;
  /** Handle one item; a rejection is passed to `fail`. */
  process(t: TakenItem): Promise<void>;
  /** True once the run must stop taking (a fatal error so far). */
  stopped(): boolean;
  /** A fatal error: the frontier failed, or an item did. */
  fail(err: unknown): void;
}

/**
 * Take and run items until the frontier is drained, the signal aborts or `stopped()`.
 * @returns how many items were still in flight when an aborted run gave up waiting on them.
 */
export async function takeLoop(o: TakeLoopOptions): Promise<number> {
  const { frontier, signal } = o;
  const inflight = new Set<Promise<void>>();
  let abandoned = 0;
  let completions = 0;
  let wake: (() => void) | undefined;
  const turns = new LoopTurns(STEPS_PER_TURN);
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (o.stopped() || signal?.aborted) break;
      const seen = completions;
      let r: Awaited<ReturnType<Frontier['take']>> | undefined;
      try {
        // An interrupt must not wait for the frontier: a shared one whose Redis is away
        // answers only when Redis is back, and Ctrl-C would do nothing until then.
        r = frontier.takeSync !== undefined ? frontier.takeSync() : signal ? await unlessAborted(frontier.take(), signal, () => undefined) : await frontier.take();
        if (r === undefined) break;
      } catch (err) {
        // A frontier that fails (a shared one whose store is gone for good) stops the run;
        // the requests in flight still finish and get their rows.
        o.fail(err);
        break;
      }
      if (r.kind === 'item') {
        // Items decided from a cached policy settle in microtasks alone (see loop-turns.ts).
        if (turns.due()) await nextTurn();
        const done = () => {
          inflight.delete(p);
          completions++;
          wake?.();
        };
        const p: Promise<void> = o.process(r).then(done, (err: unknown) => {
          o.fail(err);
          done();
        });
        inflight.add(p);
        continue;
      }
      if (r.kind === 'drained') break;
      if (completions !== seen) continue;
      // Sleep until the earliest host opens, or something of ours completes. With nothing of
      // ours in flight and no time given, poll now and then: a shared frontier can change
      // under us (other workers finish).
      // A wait past the longest Node timer (2^31 - 1 ms) is slept in steps: a longer timer fires
      // after 1 ms, and the loop would spin.
      const ms = r.retryAt !== null ? Math.min(Math.max(0, r.retryAt - Date.now()), MAX_TIMER_MS) : inflight.size > 0 ? undefined : 1_000;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (ms !== undefined) timer = setTimeout(resolve, ms);
      });
      if (timer !== undefined) clearTimeout(timer);
      wake = undefined;
    }
    if (signal?.aborted) {
      // Requests in flight were aborted with the signal and get their rows at once; what
      // still waits after the grace period waits on the frontier or the store (Redis away).
      const all = Promise.all(inflight);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, o.abortGraceMs)))]);
      clearTimeout(timer);
      abandoned = inflight.size;
    } else await Promise.all(inflight);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return abandoned;
}
