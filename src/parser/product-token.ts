// Product tokens (RFC 9309 §2.2.1): "Crawlers MUST use case-insensitive matching to find the group
// that matches the product token"; a product token is letters, `_` and `-` only
// (`product-token = identifier / "*"`, `identifier = 1*(%x2D / %x41-5A / %x5F / %x61-7A)`).

function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 45 || c === 95;
}

/**
 * The crawler's product token: the start of its User-Agent string up to the first `/`, white space or
 * end. `'ExampleBot/2.1 (+https://bot.example/info)'` gives `'ExampleBot'`. The result may hold
 * characters a product token may not (`'Agent4/1.0'` gives `'Agent4'`); such a crawler is named by no
 * group and only `*` groups apply to it (see {@link isValidProductToken}).
 */
export function productToken(userAgent: string): string {
  let start = 0;
  const n = userAgent.length;
  while (start < n && isBlank(userAgent.charCodeAt(start))) start++;
  let end = start;
  while (end < n) {
    const c = userAgent.charCodeAt(end);
    if (c === 47 || isBlank(c)) break;
    end++;
  }
  return start === 0 && end === n ? userAgent : userAgent.slice(start, end);
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/** True when `token` is a valid RFC 9309 product token (letters, `_`, `-`; at least one). */
export function isValidProductToken(token: string): boolean {
  if (token.length === 0) return false;
  for (let i = 0; i < token.length; i++) if (!isTokenChar(token.charCodeAt(i))) return false;
  return true;
}

/**
 * The token a `user-agent` line names, lower-cased: `*` for the wildcard, else the leading run of
 * letters, `_` and `-` of its value (`ExampleBot/1.0` and `ExampleBot Images` both name `examplebot`),
 * as Google's reference parser reads it; `''` when the value starts with any other character.
 * `exact` tells whether the whole value was a valid token (no diagnostic needed).
 */
export function userAgentLineToken(value: string): { token: string; exact: boolean } {
  // Like Google's parser, `*` is the wildcard only alone or followed by white space (`* # all`).
  if (value.charCodeAt(0) === 42 /* * */) {
    if (value.length === 1) return { token: '*', exact: true };
    const c = value.charCodeAt(1);
    if (c === 32 || c === 9) return { token: '*', exact: false };
    return { token: '', exact: false };
  }
  let end = 0;
  while (end < value.length && isTokenChar(value.charCodeAt(end))) end++;
  return { token: value.slice(0, end).toLowerCase(), exact: end === value.length };
}
