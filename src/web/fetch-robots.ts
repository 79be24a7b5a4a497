// The robots.txt fetch behind `lint URL` and the tester's "Fetch robots.txt": the library's own
// fetcher (RFC 9309 §2.3: redirects, status classes, size and time caps), with curl-style --resolve.
import { createResolvingAgent } from '../fetcher/resolving-agent.js';
import { fetchRobotsTxt, type RobotsFetchResult } from '../fetcher/robots-fetcher.js';
import { originOf } from '../fetcher/url.js';

export interface ToolFetchOptions {
  /** curl-style `HOST:PORT:ADDR` entries. */
  resolve?: readonly string[];
  /** Whole fetch (ms). Default 10,000. */
  timeoutMs?: number;
  /** Decoded bytes kept at most. Default 2 MiB: more than the parser's 500 KiB, so the parser
   *  itself sees and reports content past its limit. */
  maxBytes?: number;
  userAgent?: string;
}

/**
 * Fetch the robots.txt of the origin of `url` (any URL on the site, or the robots.txt URL itself).
 * Never throws for what the network or server does; the result says what happened.
 * @throws TypeError for a string that is not an absolute http(s) URL, InvalidResolveEntryError for a bad --resolve.
 */
export async function fetchRobotsForTool(url: string, options: ToolFetchOptions = {}): Promise<RobotsFetchResult> {
  const origin = originOf(url);
  const dispatcher = createResolvingAgent(options.resolve ?? []);
  try {
    return await fetchRobotsTxt(origin, {
      dispatcher,
      userAgent: options.userAgent ?? 'robots-gate-tools/0.1 (+https://github.com/robots-gate)',
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: options.maxBytes ?? 2 * 1024 * 1024,
      maxRedirects: 5,
    });
  } finally {
    await dispatcher.close();
  }
}
