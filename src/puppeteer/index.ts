// 'robots-gate/puppeteer': gate a puppeteer-core page or browser with a RobotsGate. Only types
// come from puppeteer-core (an optional peer dependency): the caller brings the browser.
export { gatePage, gateBrowser, type PuppeteerGatedRequest, type PuppeteerGateHandle } from './gate-page.js';
export { blockedChannel } from '../browser/gate-page.js';
export type { BrowserGate, GateOptions } from '../browser/types.js';
