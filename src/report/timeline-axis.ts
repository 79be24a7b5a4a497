// The time axis of a report timeline: where it ends and where its ticks go.
// Ticks are offsets from the host's first request, on steps of 1, 2 or 5 × 10^k ms (never under
// 1 ms, the audit's resolution), so no two labels read alike on a span of a few milliseconds.

export interface TimelineAxis {
  /** Length of the axis (ms): a whole number of steps, at least the span asked for. */
  readonly spanMs: number;
  /** Tick offsets (ms) from the axis start, 0 first and `spanMs` last. */
  readonly ticks: readonly number[];
}

/** The shortest axis drawn (ms): requests within a few ms of each other still get room. */
const MIN_SPAN_MS = 10;
/** A request takes at most this share of the axis, so a host with one request does not get a bar
 *  as wide as the page (which reads as "this host was busy the whole time"). */
const MAX_BAR_SHARE = 0.25;

/**
 * @param spanMs time from the first request start to the last thing drawn (ms)
 * @param longestMs the longest single request (ms)
 * @param maxSteps most intervals between ticks (default 5)
 */
export function timelineAxis(spanMs: number, longestMs: number, maxSteps = 5): TimelineAxis {
  const wanted = Math.max(spanMs, longestMs / MAX_BAR_SHARE, MIN_SPAN_MS);
  let step = 1;
  for (let magnitude = 1; step * maxSteps < wanted && magnitude < 1e15; magnitude *= 10) {
    step = [1, 2, 5].map((m) => m * magnitude).find((s) => s * maxSteps >= wanted) ?? 10 * magnitude;
  }
  const steps = Math.ceil(wanted / step);
  return { spanMs: steps * step, ticks: Array.from({ length: steps + 1 }, (_, i) => i * step) };
}
