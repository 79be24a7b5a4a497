// A browser context made for gating: the gate's User-Agent, service workers blocked (a service
// worker is a target of its own, outside the pages' DevTools sessions), every page gated.
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { gateContext } from './gate-page.js';
import type { BrowserGate, GateHandle, GateOptions } from './types.js';

export interface GatedContext {
  readonly context: BrowserContext;
  readonly handle: GateHandle;
}

/**
 * Opens a context on `browser` whose pages are all gated.
 * @param contextOptions passed to `browser.newContext`; `userAgent` and `serviceWorkers` are set here.
 */
export async function newGatedContext(
  browser: Browser,
  gate: BrowserGate,
  options: GateOptions & { contextOptions?: BrowserContextOptions } = {},
): Promise<GatedContext> {
  const { contextOptions, ...gateOptions } = options;
  const userAgent = gateOptions.userAgent ?? gate.userAgent;
  const context = await browser.newContext({
    ...contextOptions,
    ...(userAgent ? { userAgent } : {}),
    serviceWorkers: 'block',
  });
  try {
    return { context, handle: await gateContext(context, gate, gateOptions) };
  } catch (err) {
    await context.close().catch(() => {});
    throw err;
  }
}
