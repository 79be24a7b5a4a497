// Errors of the DevTools endpoint, each with a stable `code`.

/** Chromium did not start, or its DevTools pipe closed before it answered. */
export class BrowserStartError extends Error {
  readonly code = 'ERR_BROWSER_START';
  constructor(
    readonly executablePath: string,
    detail: string,
  ) {
    super(`Chromium at ${executablePath} did not start: ${detail}`);
    this.name = 'BrowserStartError';
  }
}

/** Chromium exited while the endpoint served it; every client was disconnected. */
export class BrowserExitedError extends Error {
  readonly code = 'ERR_BROWSER_EXITED';
  constructor(
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
  ) {
    super(`Chromium exited (${signal ? `signal ${signal}` : `code ${exitCode}`}): the DevTools endpoint is closed`);
    this.name = 'BrowserExitedError';
  }
}

/** The port asked for is taken or may not be bound. */
export class EndpointListenError extends Error {
  readonly code = 'ERR_ENDPOINT_LISTEN';
  constructor(
    readonly port: number,
    cause: unknown,
  ) {
    super(`cannot listen on 127.0.0.1:${port}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'EndpointListenError';
  }
}
