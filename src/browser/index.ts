// 'robots-gate/browser': gate a Playwright page or context. Needs playwright-core (an optional
// peer dependency), loaded only by launchChromium; the rest takes the caller's own objects.
export { gatePage, gateContext, whenGuarded, blockedChannel } from './gate-page.js';
export { newGatedContext, type GatedContext } from './context.js';
export { launchChromium, hostResolverRules, loadPlaywright, CHROMIUM_ARGS, DEFAULT_CHROMIUM, type LaunchOptions } from './launch.js';
export { BrowserNotFoundError, PlaywrightMissingError } from './errors.js';
export type { BrowserGate, GatedRequest, GateHandle, GateHandleEvents, GateOptions, NavigationWait } from './types.js';
