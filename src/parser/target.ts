// URL -> the part RFC 9309 §2.2.2 matches against: path and query (never the fragment), in the normal
// form of normalize.ts, with an empty path read as `/`.
//
// Hot path: a path or plain http(s) URL already in normal form is matched in place, as a range of the
// caller's own string, so a check allocates nothing and never calls `new URL()` (0.4-0.9 µs).
// Anything else (dot segments, backslashes, non-ASCII, lower-case escapes, URL objects) goes through
// WHATWG `URL`, the parser fetch() itself uses, so we match the path the request will really carry.

import { normalEnd, normalizeOctets } from './normalize.js';
import { quoteInput } from './quote.js';

/** The matchable range found by the last `locateTarget` call (module scratch: no allocation per call). */
export let targetText = '';
export let targetStart = 0;
export let targetEnd = 0;

function invalid(url: unknown): TypeError {
  return new TypeError(`robots-gate: cannot match an invalid URL: ${quoteInput(String(url))} (expected an absolute http(s) URL or a path beginning with "/")`);
}

/**
 * Sets targetText/targetStart/targetEnd to the normalised path + query of `url`.
 * @throws TypeError naming the URL when it is neither a parseable absolute URL nor a path starting with `/`.
 */
export function locateTarget(url: string | URL): void {
  if (typeof url === 'string') {
    const n = url.length;
    let pathStart = -1;
    if (url.charCodeAt(0) === 47 /* / */) {
      if (url.charCodeAt(1) !== 47) pathStart = 0;
    } else {
      pathStart = simpleAuthorityEnd(url);
    }
    if (pathStart >= 0) {
      const end = normalEnd(url, pathStart, n);
      if (end >= 0) {
        targetText = url;
        targetStart = pathStart;
        targetEnd = end;
        return;
      }
    }
    let parsed: URL;
    try {
      // A leading '//' is a path here, never a network-path reference: prefix a throwaway origin.
      parsed = url.charCodeAt(0) === 47 ? new URL('http://h' + url) : new URL(url);
    } catch {
      throw invalid(url);
    }
    if (!isMatchable(parsed)) throw invalid(url);
    setFromUrl(parsed);
    return;
  }
  if (url instanceof URL) {
    if (!isMatchable(url)) throw invalid(url.href);
    setFromUrl(url);
    return;
  }
  // A URL from another realm or library (anything with a string `href`) is read through its href.
  const href = url !== null && typeof url === 'object' ? (url as { href?: unknown }).href : undefined;
  if (typeof href === 'string' && href !== '' && href.charCodeAt(0) !== 47) {
    locateTarget(href);
    return;
  }
  throw invalid(url);
}

/**
 * RFC 9309 rules govern the paths of a server that can serve /robots.txt: a URL with a host and a
 * hierarchical path (http, https, and the other protocols §2.3 allows, such as ftp). `new URL`
 * accepts `javascript:alert(1)`, `mailto:a@b`, `data:...` or `file:///etc/passwd` too, and their
 * "paths" would be matched as if they were pages of the site (`mailto:a@b` as `/a@b`): a verdict
 * about nothing, which a caller could take for permission. They are invalid here.
 */
function isMatchable(u: URL): boolean {
  return u.host !== '' && u.protocol !== 'file:' && u.pathname.charCodeAt(0) === 47;
}

function setFromUrl(u: URL): void {
  let p = u.pathname;
  if (p === '' || p.charCodeAt(0) !== 47) p = '/' + p;
  let query = u.search;
  if (query === '') {
    // `search` is '' for both no query and an empty one; the request line keeps a lone '?'.
    const href = u.href;
    const hash = href.indexOf('#');
    if (href.charCodeAt((hash < 0 ? href.length : hash) - 1) === 63 /* ? */) query = '?';
  }
  const s = normalizeOctets(p + query);
  targetText = s;
  targetStart = 0;
  targetEnd = s.length;
}

/**
 * The normalised path + query of `url` (RFC 9309 §2.2.2 normal form), e.g. for a URL object the gate
 * already parsed: pass the result to `check`/`isAllowed` and no second `new URL()` happens.
 * @throws TypeError naming the URL when it cannot be parsed.
 */
export function matchablePath(url: string | URL): string {
  locateTarget(url);
  return targetStart === 0 && targetEnd === targetText.length ? targetText : targetText.slice(targetStart, targetEnd);
}

/**
 * For `http://host[:port]/...` or `https://...` with a plain lower-case host name, the index of the
 * path's `/`; otherwise -1 (the caller then lets WHATWG URL decide, and report invalid URLs).
 */
function simpleAuthorityEnd(s: string): number {
  // 'http://' or 'https://', compared by char code (no string allocated or searched).
  if (s.charCodeAt(0) !== 104 || s.charCodeAt(1) !== 116 || s.charCodeAt(2) !== 116 || s.charCodeAt(3) !== 112) return -1;
  let i = s.charCodeAt(4) === 115 ? 5 : 4;
  if (s.charCodeAt(i) !== 58 || s.charCodeAt(i + 1) !== 47 || s.charCodeAt(i + 2) !== 47) return -1;
  i += 3;
  const hostStart = i;
  const n = s.length;
  let lastLabelStart = i;
  let portStart = -1;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 47) break;
    if (portStart >= 0) {
      if (c < 48 || c > 57) return -1;
      continue;
    }
    // An `xn--` label is punycode that WHATWG URL validates (`http://xn--zz/` is no URL): leave it to URL.
    if ((i === hostStart || c === 46) && s.charCodeAt(c === 46 ? i + 1 : i) === 120 && s.startsWith('n--', c === 46 ? i + 2 : i + 1)) return -1;
    if (c === 58) portStart = i + 1;
    else if (c === 46) lastLabelStart = i + 1;
    else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45)) return -1;
  }
  if (i >= n) return -1; // no path: '/' must be supplied, leave it to URL
  const hostEnd = portStart >= 0 ? portStart - 1 : i;
  if (hostEnd === hostStart || hostEnd === lastLabelStart) return -1;
  // A host whose last label is not a letter run may be an IPv4 address that WHATWG validates.
  const last = s.charCodeAt(hostEnd - 1);
  if (!(last >= 97 && last <= 122)) return -1;
  if (portStart >= 0 && (i - portStart > 5 || (i > portStart && Number(s.slice(portStart, i)) > 65535))) return -1;
  return i;
}
