// Errors raised by the fetcher layer. Each has a stable `code`.
import { quoteInput } from '../parser/quote.js';

/** A URL whose scheme is not http: or https:. A TypeError, so callers catching bad input catch it too. */
export class UnsupportedSchemeError extends TypeError {
  readonly code = 'ERR_UNSUPPORTED_SCHEME' as const;
  /** The URL as given. */
  readonly url: string;
  constructor(url: string) {
    super(`unsupported URL scheme in ${quoteInput(url)}: only http: and https: URLs have a robots.txt (RFC 9309 §2.3)`);
    this.name = 'UnsupportedSchemeError';
    this.url = url;
  }
}

/** A `resolve` entry that is not `HOST:PORT:ADDR`. */
export class InvalidResolveEntryError extends TypeError {
  readonly code = 'ERR_INVALID_RESOLVE_ENTRY' as const;
  readonly entry: string;
  constructor(entry: string, why: string) {
    super(`invalid resolve entry ${JSON.stringify(entry)}: ${why} (expected HOST:PORT:ADDR, e.g. example.com:443:127.0.0.1)`);
    this.name = 'InvalidResolveEntryError';
    this.entry = entry;
  }
}
