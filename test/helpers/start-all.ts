// Set-up that starts several processes at once. Promise.all rejects as soon as one start fails,
// before the others are assigned, so what did start (a `serve` subprocess, a browser) is never
// stopped: one outlived a test run by an hour when Chromium was missing.

/**
 * Wait for every start in `steps`, then throw the first failure. Each step assigns what it started
 * (`startServe([]).then((s) => (serve = s))`), so the file's afterAll stops every one of them.
 */
export async function startAll(steps: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(steps);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
