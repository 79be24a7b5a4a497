// Launching Debian's Chromium through playwright-core, loaded only when a browser is wanted.
import { access, constants } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { BrowserNotFoundError, PlaywrightMissingError } from './errors.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Flags for a closed machine: no sandbox (containers), no GPU, and none of Chromium's own
 *  background traffic (updates, sync, field trials), which would leave the machine ungated. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  // Chromium honours only the last --disable-features, and Playwright passes its own list first:
  // this one repeats Playwright's (1.65) and adds one. Kept from Playwright's: no HTTPS upgrade of
  // http: URLs (an upgrade is an internal redirect that request routing never sees, so it would
  // leave ungated) and none of the background requests to Google.
  // Added: LocalNetworkAccessChecks. A document handed to the frame by interception (the crawl's
  // browser transport renders the bytes it fetched) has no IP address space: Local Network Access would
  // count it as public and refuse its requests to private and loopback hosts (an intranet crawl,
  // a local test). The gate, not the address space, decides what this browser may fetch.
  `--disable-features=${[
    'AvoidUnnecessaryBeforeUnloadCheckSync',
    'DestroyProfileOnBrowserClose',
    'HttpsUpgrades',
    'HttpsFirstBalancedModeAutoEnable',
    'LensOverlay',
    'MediaRouter',
    'PaintHolding',
    'ThirdPartyStoragePartitioning',
    'AvoidCorsURLLoaderRestartOnRedirect',
    'OptimizationHints',
    'NetworkTimeServiceQuerying',
    'AimEnabled',
    'PreconnectToSearch',
    'LocalNetworkAccessChecks',
  ].join(',')}`,
  // The same holds for --enable-features: Playwright's two (1.65) repeated, and one added:
  // NetworkServiceInProcess2 runs the network service inside the browser process. A gated request
  // crosses from the renderer to the browser process, where DevTools interception holds it, and on
  // to the network service: in process, that last hop is a call, not an IPC. Measured on 2 cores
  // (bench/README.md): a page of 50 subresources paused over DevTools went from 1.30 to 1.14 of
  // its ungated load time; ungated loads did not change. One process fewer per browser, too.
  `--enable-features=${['CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies', 'NetworkServiceInProcess2'].join(',')}`,
];

export interface LaunchOptions {
  /** Chromium binary; default /usr/bin/chromium (Debian's `chromium` package). Never a downloaded one. */
  executablePath?: string;
  /** curl-style `HOST:PORT:ADDR` entries (as the gate's `resolve`): the browser connects there too. */
  resolve?: readonly string[];
  /** Extra Chromium flags, after the defaults. */
  args?: readonly string[];
  /** Launch timeout in ms (default 30,000). */
  timeoutMs?: number;
}

/** Loads playwright-core at run time. @throws PlaywrightMissingError when it is not installed. */
export async function loadPlaywright(): Promise<typeof import('playwright-core')> {
  try {
    return await import('playwright-core');
  } catch (err) {
    throw new PlaywrightMissingError(err);
  }
}

/**
 * Chromium's `--host-resolver-rules` for curl-style entries: `a.test:8080:127.0.0.1` becomes
 * `MAP a.test:8080 127.0.0.1:8080` (only that port is redirected, as with curl; of several
 * addresses, the first).
 * @throws TypeError naming an entry that is not HOST:PORT:ADDR.
 */
export function hostResolverRules(resolve: readonly string[]): string {
  return resolve
    .map((entry) => {
      const m = /^(\[[^\]]+\]|[^:]+):(\d+):(.+)$/.exec(entry);
      if (!m) throw new TypeError(`resolve entry must be HOST:PORT:ADDR, got ${JSON.stringify(entry)}`);
      const [, host, port, addrs] = m;
      // Chromium maps a name to one address: the first of curl's list.
      const addr = addrs!.split(',')[0]!.trim().replace(/^\[(.*)\]$/, '$1');
      const target = addr.includes(':') ? `[${addr}]` : addr;
      return `MAP ${host}:${port} ${target}:${port}`;
    })
    .join(', ');
}

/**
 * Launches headless Chromium from `executablePath` (default /usr/bin/chromium).
 * @throws BrowserNotFoundError when no executable is there; PlaywrightMissingError without playwright-core.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = options.executablePath ?? DEFAULT_CHROMIUM;
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw new BrowserNotFoundError(executablePath);
  }
  const { chromium } = await loadPlaywright();
  const args = [...CHROMIUM_ARGS];
  if (options.resolve?.length) args.push(`--host-resolver-rules=${hostResolverRules(options.resolve)}`);
  args.push(...(options.args ?? []));
  return chromium.launch({ executablePath, args, timeout: options.timeoutMs ?? 30_000 });
}
