// Which listed URLs a sitemap may speak for (sitemaps.org §"Sitemap file location" and
// §"Sitemaps & Cross Submits"): its own host at its own directory or below, and any URL of an
// origin whose robots.txt names the chain (that robots.txt is the site owner vouching for it).
import type { DropReason } from './types.js';

/** sitemaps.org: "URLs must be less than 2,048 characters". */
export const MAX_URL_LENGTH = 2_048;

/** The URL prefixes a sitemap may list: its directory, and the advertising origins' roots. */
export interface SitemapScope {
  /** `scheme://host[:port]/dir/` of the sitemap itself. */
  readonly directory: string;
  /** Origins (`scheme://host[:port]`) whose robots.txt advertised this sitemap's chain. */
  readonly vouched: readonly string[];
}

export function scopeOf(sitemapUrl: string, vouched: readonly string[]): SitemapScope {
  const u = new URL(sitemapUrl);
  const dir = u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1);
  return { directory: u.origin + dir, vouched };
}

/**
 * Check one listed location (entity-decoded by the XML parser): absolute http(s) only, no
 * credentials, and inside the scope.
 * @returns the URL without fragment, or the reason it is dropped.
 */
export function admit(loc: string, scope: SitemapScope): { url: URL } | { drop: DropReason } {
  const r = absoluteHttpUrl(loc);
  if ('drop' in r) return r;
  const url = r.url;
  if (scope.vouched.includes(url.origin) || url.href.startsWith(scope.directory)) return { url };
  return { drop: scope.directory.startsWith(url.origin + '/') ? 'outside-path' : 'other-host' };
}

/** The checks that need no scope: absolute, http(s), no credentials, not too long. The URL comes
 *  back without its fragment. */
export function absoluteHttpUrl(loc: string): { url: URL } | { drop: DropReason } {
  if (loc === '') return { drop: 'invalid-url' };
  if (loc.length > MAX_URL_LENGTH) return { drop: 'too-long' };
  // A scheme is letters first (RFC 3986 §3.1); without one the text is relative.
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(loc);
  if (scheme === null) return { drop: /\s/.test(loc) ? 'invalid-url' : 'relative-url' };
  const s = scheme[1]!.toLowerCase();
  if (s !== 'http' && s !== 'https') return { drop: 'unsupported-scheme' };
  let url: URL;
  try {
    url = new URL(loc);
  } catch {
    return { drop: 'invalid-url' };
  }
  if (url.username !== '' || url.password !== '') return { drop: 'credentials' };
  url.hash = '';
  return { url };
}
