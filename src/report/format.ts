// How the report and the audit browser write durations, sizes and times for a person.

/** `250 ms`, `1.5 s`, `2 min 5 s`. Input in milliseconds. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1).replace(/\.?0+$/, '')} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `512 B`, `3.4 KiB`, `1.2 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** An epoch-ms time as ISO 8601 with milliseconds, in UTC (the audit's own form). */
export function formatTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '–';
}

/** `1 warning`, `2 warnings`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A row's reason, with what made robots.txt unreachable when that is the reason: the row's
 *  `policyStatus`, an HTTP status (5xx, 429) or a network error code (ETIMEDOUT), RFC 9309
 *  §2.3.1.4. `unreachable (ETIMEDOUT)`; any other reason as it is. */
export function reasonWithCause(reason: string, policyStatus: string | number | null | undefined): string {
  if (reason !== 'unreachable' || policyStatus === null || policyStatus === undefined || policyStatus === '') return reason;
  return `${reason} (${policyStatus})`;
}
