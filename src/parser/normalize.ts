// The one normal form that patterns and URLs are both brought to before they are compared
// (RFC 9309 §2.2.2: "Octets in the URI and robots.txt paths outside the range of the ASCII coded
// character set, and those in the reserved range defined by RFC 3986, MUST be percent-encoded as
// defined by RFC 3986 prior to comparison."):
//
// - octets outside US-ASCII are percent-encoded as UTF-8 (`ツ` -> `%E3%83%84`);
// - `%xx` escapes of unreserved characters (RFC 3986 §2.3: ALPHA DIGIT - . _ ~) are decoded, since
//   RFC 3986 §6.2.2.2 makes them equivalent (`/%7Euser` is `/~user`);
// - `%2A` and `%24` are decoded to `*` and `$`: RFC 9309 §2.2.3 says a percent-encoded special
//   character in a pattern matches that character in the URI (`/a-%2A.html` matches `/a-*.html`);
//   in a pattern, the compiler reads the decoded `*`/`$` as literal octets, never as wildcard/anchor;
// - the hex digits of every other escape are upper-cased; reserved characters (`%2F`, `%3F`, ...)
//   stay encoded, so `/a%2Fb` and `/a/b` stay different, as RFC 3986 requires;
// - ASCII octets that may not appear in a URI at all (controls, space, `"` `<` `>` `\` `^` `` ` ``
//   `{` `|` `}`, DEL) are percent-encoded, and so is `'` (see ASCII_CLASS); a `%` not followed by
//   two hex digits becomes `%25`.
//
// Google's reference parser differs: it only encodes non-ASCII octets and upper-cases hex, so for it
// `/%7Euser/` and `/~user/` are different paths. We follow the RFC (see test "encoding").

const HEX = '0123456789ABCDEF';

// 0: keep as is; 1: must be percent-encoded; 2: '%'.
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (c === 37) ASCII_CLASS[c] = 2;
  // `'` is kept encoded (%27) on both sides: WHATWG URL sends it raw in a path but as %27 in an
  // http(s) query, so a rule's `'` would otherwise never match the query the request carries.
  // RFC 9309 §2.2.2 has reserved octets percent-encoded before comparison; `'` is one of them.
  else if (/[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=]/.test(ch)) ASCII_CLASS[c] = 0;
  else ASCII_CLASS[c] = 1;
}

/**
 * 1 for ASCII characters that stand for themselves in a pattern: kept as they are by the normal form,
 * and neither `*`, `$` nor `%`. A pattern made only of these matches by plain comparison.
 */
export const PLAIN = new Uint8Array(128);
for (let c = 0; c < 128; c++) PLAIN[c] = ASCII_CLASS[c] === 0 && c !== 42 && c !== 36 ? 1 : 0;

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** True for octets whose `%xx` escape the normal form decodes (unreserved, plus `*` and `$`). */
function decodesTo(v: number): boolean {
  return (
    (v >= 65 && v <= 90) || (v >= 97 && v <= 122) || (v >= 48 && v <= 57) ||
    v === 45 || v === 46 || v === 95 || v === 126 || v === 42 || v === 36
  );
}

/** Is s[start, end) already in normal form? Scans without allocating. */
export function isNormal(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return false;
    const k = ASCII_CLASS[c]!;
    if (k === 0) continue;
    if (k === 1) return false;
    // '%': must be followed by two upper-case hex digits of an octet that stays encoded.
    if (i + 2 >= end) return false;
    const h = s.charCodeAt(i + 1);
    const l = s.charCodeAt(i + 2);
    const hv = hexValue(h);
    const lv = hexValue(l);
    if (hv < 0 || lv < 0 || (h >= 97) || (l >= 97) || decodesTo(hv * 16 + lv)) return false;
    i += 2;
  }
  return true;
}

/**
 * One pass over a path + query starting at `start`: the index where it ends (the `#` of a fragment, or
 * `n`) when it is already in normal form and has no `.`/`..` segment that URL resolution would remove;
 * -1 otherwise (the caller then takes the slow path). Allocates nothing.
 */
export function normalEnd(s: string, start: number, n: number): number {
  let inPath = true;
  for (let i = start; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return -1;
    if (c === 35 /* # */) return i;
    const k = ASCII_CLASS[c]!;
    if (k === 0) {
      if (c === 63 /* ? */) inPath = false;
      else if (c === 47 /* / */ && inPath && s.charCodeAt(i + 1) === 46 /* . */) {
        // `/.` followed by `/`, `?`, `#`, end, or `./` ... : a dot segment.
        let j = i + 2;
        if (s.charCodeAt(j) === 46) j++;
        const d = j < n ? s.charCodeAt(j) : 47;
        if (d === 47 || d === 63 || d === 35) return -1;
      }
      continue;
    }
    if (k === 1 || i + 2 >= n) return -1;
    const h = s.charCodeAt(i + 1);
    const l = s.charCodeAt(i + 2);
    const hv = hexValue(h);
    const lv = hexValue(l);
    if (hv < 0 || lv < 0 || h >= 97 || l >= 97 || decodesTo(hv * 16 + lv)) return -1;
    i += 2;
  }
  return n;
}

/** The normal form of `s` (see the file comment). Returns `s` itself when it is already normal. */
export function normalizeOctets(s: string): string {
  if (isNormal(s, 0, s.length)) return s;
  let out = '';
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      const k = ASCII_CLASS[c]!;
      if (k === 0) out += s[i];
      else if (k === 1) out += '%' + HEX[c >> 4] + HEX[c & 15];
      else {
        const hv = i + 2 < n ? hexValue(s.charCodeAt(i + 1)) : -1;
        const lv = hv >= 0 ? hexValue(s.charCodeAt(i + 2)) : -1;
        if (hv < 0 || lv < 0) out += '%25';
        else {
          const v = hv * 16 + lv;
          out += decodesTo(v) ? String.fromCharCode(v) : '%' + HEX[hv] + HEX[lv];
          i += 2;
        }
      }
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else cp = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) cp = 0xfffd;
    out += encodeCodePoint(cp);
  }
  return out;
}

function pct(v: number): string {
  return '%' + HEX[v >> 4] + HEX[v & 15];
}

function encodeCodePoint(cp: number): string {
  if (cp < 0x800) return pct(0xc0 | (cp >> 6)) + pct(0x80 | (cp & 63));
  if (cp < 0x10000) return pct(0xe0 | (cp >> 12)) + pct(0x80 | ((cp >> 6) & 63)) + pct(0x80 | (cp & 63));
  return pct(0xf0 | (cp >> 18)) + pct(0x80 | ((cp >> 12) & 63)) + pct(0x80 | ((cp >> 6) & 63)) + pct(0x80 | (cp & 63));
}
