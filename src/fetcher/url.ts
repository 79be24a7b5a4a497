// URL handling for the gate and the robots.txt fetcher: only http(s), origins in one canonical form.
import { quoteInput } from '../parser/quote.js';
import { UnsupportedSchemeError } from './errors.js';

/**
 * Parse `input` as an absolute http: or https: URL.
 * @throws TypeError naming the input when it is not a URL at all.
 * @throws UnsupportedSchemeError (code `ERR_UNSUPPORTED_SCHEME`, a TypeError) for any other scheme:
 *   robots.txt (RFC 9309 §2.3) is only defined for http and https here.
 */
export function parseHttpUrl(input: string | URL): URL {
  let url: URL;
  if (input instanceof URL) {
    url = input;
  } else {
    if (typeof input !== 'string') throw new TypeError(`expected a URL string, got ${typeof input}`);
    // A path alone (`/page`) is a reference relative to a page: robots.txt belongs to an origin.
    const hint = input.startsWith('/') && !input.startsWith('//') ? ' (a path alone: give the absolute URL, as in "https://example.com/page")' : missingSchemeHint(input);
    if (hint) throw new TypeError(`invalid URL: ${quoteInput(input)}${hint}`);
    try {
      url = new URL(input);
    } catch {
      throw new TypeError(`invalid URL: ${quoteInput(input)}`);
    }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsupportedSchemeError(url.href);
  return url;
}

/**
 * For a bare host name with no scheme (`www.amazon.de/gp/cart`, `localhost:8080/x`), the advice to
 * add one: ` (no scheme: add https://, as in "https://www.amazon.de/gp/cart")`; '' for anything
 * else. Such input is no URL (or, with a port, parses as a URL of scheme `localhost:`).
 */
export function missingSchemeHint(input: string): string {
  if (input.includes('://') || input.length > 2000 || !/^[A-Za-z0-9[]/.test(input)) return '';
  let u: URL;
  try {
    u = new URL(`https://${input}`);
  } catch {
    return '';
  }
  const named = u.hostname.includes('.') || u.hostname === 'localhost' || u.port !== '';
  if (!named || u.username || u.password) return '';
  return ` (no scheme: add https://, as in ${quoteInput(`https://${input}`)})`;
}

/**
 * The origin of an http(s) URL: `scheme://host[:port]`, host lower-cased and in ASCII (punycode),
 * default ports (80, 443) folded away. RFC 9309 §2.3: each origin has its own robots.txt.
 * @throws TypeError / UnsupportedSchemeError as parseHttpUrl.
 */
export function originOf(input: string | URL): string {
  // WHATWG URL already lower-cases, punycodes and folds default ports; `origin` is exactly that form.
  return parseHttpUrl(input).origin;
}

/** The host key politeness uses (`URL.host`: the port when not the default) of a URL or origin;
 *  '' for a string that is no URL. */
export function hostKeyOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** `<origin>/robots.txt` for an origin in originOf form. */
export function robotsUrlOf(origin: string): string {
  return `${origin}/robots.txt`;
}

/**
 * The hot path's URL split: is `s` a URL already in canonical form (what `new URL(s).href` would give
 * back unchanged, restricted to a safe subset)? If so, its parts are left in splitOrigin, splitHostname,
 * splitPathStart and splitPlain (module scratch, read before the next call: no URL object and no result
 * object on the hot path; `new URL()` costs 0.4-0.9 µs). False when it needs the full parser: upper
 * case or non-ASCII hosts, `xn--` labels (the parser validates them), numeric last labels (IPv4 forms it
 * rewrites), userinfo, default or zero-padded ports, fragments, dot segments (`/.`, `%2e`), and any
 * character the parser would percent-encode.
 */
export function splitCanonicalUrl(s: string): boolean {
  // Most calls repeat the previous URL's origin (a crawler works through one site at a time): its
  // scheme, host and port were checked then, so only the path is left to check.
  const lastLen = splitOrigin.length;
  if (lastLen !== 0 && s.charCodeAt(lastLen) === 47 /* / */ && s.startsWith(splitOrigin)) {
    const path = pathClass(s, lastLen);
    if (path === NOT_CANONICAL) return false;
    splitPathStart = lastLen;
    splitPlain = path === PLAIN_PATH;
    return true;
  }
  let i: number;
  if (s.startsWith('http://')) i = 7;
  else if (s.startsWith('https://')) i = 8;
  else return false;
  const hostStart = i;
  const len = s.length;
  let labelStart = i;
  for (; i < len; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95) continue;
    if (c !== 46) break;
    if (i === labelStart || isPunycodeLabel(s, labelStart)) return false;
    labelStart = i + 1;
  }
  const hostEnd = i;
  if (hostEnd === labelStart || isPunycodeLabel(s, labelStart)) return false;
  const first = s.charCodeAt(labelStart);
  if (first < 97 || first > 122) return false;
  if (s.charCodeAt(i) === 58 /* : */) {
    const portStart = ++i;
    let port = 0;
    for (; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      port = port * 10 + (c - 48);
    }
    const digits = i - portStart;
    if (digits === 0 || digits > 5 || s.charCodeAt(portStart) === 48 || port > 65535) return false;
    if (port === (hostStart === 7 ? 80 : 443)) return false;
  }
  if (s.charCodeAt(i) !== 47 /* / */) return false;
  const path = pathClass(s, i);
  if (path === NOT_CANONICAL) return false;
  splitOrigin = s.slice(0, i);
  splitHostname = s.slice(hostStart, hostEnd);
  splitPathStart = i;
  splitPlain = path === PLAIN_PATH;
  return true;
}

/** The last split's origin (`scheme://host[:port]`), as `URL.origin` gives it; the next call starts
 *  by comparing with it. */
export let splitOrigin = '';
/** The last split's host name, as `URL.hostname` gives it. */
export let splitHostname = '';
/** Where the last split's path begins: `s.slice(splitPathStart)` is `URL.pathname + URL.search`. */
export let splitPathStart = 0;
/**
 * The last split's path and query have no `%`: then they are in RFC 9309's normal form as they are
 * (every other character kept by the URL parser is one the matcher keeps too, and dot segments are
 * refused above), so the matcher need not look at them again.
 */
export let splitPlain = false;

const NOT_CANONICAL = 0;
const ESCAPED_PATH = 1;
const PLAIN_PATH = 2;

/**
 * Is `s` from `at` (a `/`) a path and query the URL parser keeps as they are, without dot segments?
 * NOT_CANONICAL if not; else PLAIN_PATH when it has no `%`, ESCAPED_PATH when it has.
 */
function pathClass(s: string, at: number): number {
  const len = s.length;
  let escaped = false;
  for (let i = at; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || SAFE[c] === 0) return NOT_CANONICAL;
    // Dot segments (`/.`, `%2e`) are resolved by the parser; `/.` is rejected in the query too,
    // which only sends a few canonical URLs down the slow path.
    if (c === 47 && s.charCodeAt(i + 1) === 46) return NOT_CANONICAL;
    if (c === 37) {
      if (s.charCodeAt(i + 1) === 50 && (s.charCodeAt(i + 2) | 32) === 101) return NOT_CANONICAL;
      escaped = true;
    }
  }
  return escaped ? ESCAPED_PATH : PLAIN_PATH;
}

// Characters the URL parser keeps as they are in a path or query of an http(s) URL: letters,
// digits and - . _ ~ ! $ & ( ) * + , ; = : @ / % ?. (`'` is encoded in a special URL's query; a
// `?` is the query's start or part of it, kept either way.)
const SAFE = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&()*+,;=:@/%?') SAFE[ch.charCodeAt(0)] = 1;

function isPunycodeLabel(s: string, at: number): boolean {
  return s.charCodeAt(at) === 120 && s.charCodeAt(at + 1) === 110 && s.charCodeAt(at + 2) === 45 && s.charCodeAt(at + 3) === 45;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A Location header value as undici hands it over (each octet one character, as Latin-1) read as
 * the UTF-8 a server sent: `Location: /café` in raw UTF-8 arrives as `/cafÃ©`, which `new URL()`
 * would make `/caf%C3%83%C2%A9`, a page the server never named. Browsers, and undici's own fetch(),
 * read such a field as UTF-8 (`/caf%C3%A9`); so do we. A value that is not valid UTF-8 is kept as
 * it came (its octets become %XX escapes of themselves, as before).
 */
export function locationAsSent(value: string): string {
  let high = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff) return value;
    if (c >= 0x80) high = true;
  }
  if (!high) return value;
  const octets = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) octets[i] = value.charCodeAt(i);
  try {
    return utf8.decode(octets);
  } catch {
    return value;
  }
}
