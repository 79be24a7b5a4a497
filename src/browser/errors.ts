// Errors of the browser layer, each with a stable `code`.

/** No Chromium binary at the path given (or the default /usr/bin/chromium). */
export class BrowserNotFoundError extends Error {
  readonly code = 'ERR_BROWSER_NOT_FOUND';
  constructor(readonly executablePath: string) {
    super(
      `no Chromium at ${executablePath}: install Debian's chromium package (apt-get install chromium) ` +
        'or pass the path of a Chromium binary (--chromium PATH / executablePath)',
    );
    this.name = 'BrowserNotFoundError';
  }
}

/** playwright-core is an optional peer dependency: browser gating needs it installed. */
export class PlaywrightMissingError extends Error {
  readonly code = 'ERR_PLAYWRIGHT_MISSING';
  constructor(cause: unknown) {
    super('browser crawls need the playwright-core package: npm install playwright-core', { cause });
    this.name = 'PlaywrightMissingError';
  }
}
