// Product tokens (RFC 9309 §2.2.1): "Crawlers MUST use case-insensitive matching to find the group
// that matches the product token". One rule for both sides, the file's user-agent lines and the
// crawler's own name: a token is a run of letters, digits, `_` and `-`, compared whole.
//
// RFC 9309's grammar allows letters, `_` and `-` only (`identifier = 1*(%x2D / %x41-5A / %x5F / %x61-7A)`),
// but real crawlers are named AI2Bot, MJ12bot, img2dataset, 360Spider; crawler-commons, Nutch, Protego
// and robots-parser all compare such names whole, digits included. Reading `User-agent: AI2Bot` as
// `ai` (where Google's parser stops) would make the file's line and the crawler's name disagree, and
// merge `Agent1` and `Agent2` into one group. So digits are accepted; lint reports them (info).

/** Letters, digits, `_`, `-`: the characters of a product token as robots-gate reads it. */
export function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 95;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/** Where a product's name ends in a User-Agent string (RFC 9110 §10.1.5: `product = token ["/" version]`,
 *  products and comments separated by white space). */
function endsProduct(c: number): boolean {
  return c === 47 /* / */ || c === 59 /* ; */ || c === 40 /* ( */ || c === 41 /* ) */ || isBlank(c);
}

/** Past the `/version` of the product whose name ends at `end`, if it has one. */
function versionEnd(userAgent: string, end: number): number {
  if (userAgent.charCodeAt(end) !== 47) return end;
  let v = end + 1;
  while (v < userAgent.length && !endsProduct(userAgent.charCodeAt(v))) v++;
  return v;
}

// The last reading, kept in module state so productToken() builds no object (it runs on the
// matcher's cache miss, once per distinct User-Agent string).
let readStart = 0;
let readEnd = 0;
/** 0: the leading product; 1: the product after `compatible;`; 2: a Mozilla string naming no crawler. */
let readFrom = 0;
/** Start and end of the `compatible; Name/version` text read from, for {@link readProductToken}. */
let compatibleStart = 0;
let compatibleEnd = 0;

/** Products of browser-style headers that name a browser, engine or platform, never a crawler
 *  (lower case): skipped after `compatible;`, and refused as a crawler's given token. */
const BROWSER_PRODUCTS: ReadonlySet<string> = new Set([
  'mozilla', 'applewebkit', 'khtml', 'like', 'gecko', 'compatible', 'chrome', 'chromium', 'crios', 'safari', 'version',
  'mobile', 'firefox', 'fxios', 'edg', 'edge', 'opr', 'opera', 'msie', 'trident', 'windows', 'linux', 'macintosh',
  'x11', 'android', 'iphone', 'ipad', 'headlesschrome', 'u', 'wow64', 'win64', 'x64', 'ubuntu', 'cros',
  // Browsers that name themselves after `compatible;` too (`(compatible; Konqueror/3.5; Linux)`).
  'konqueror', 'seamonkey', 'iceweasel', 'epiphany', 'vivaldi', 'yabrowser', 'samsungbrowser', 'ucbrowser', 'silk',
]);

/** Does `name` (any case) name a browser, engine or platform (`Gecko`, `Linux`, `MSIE`), not a crawler? */
export function isBrowserProduct(name: string): boolean {
  return BROWSER_PRODUCTS.has(name.toLowerCase());
}

/** Characters that may come right before the `compatible` marker: it starts a comment's item
 *  (`(compatible;`, `; compatible;`) or stands as a word (`) compatible;`), never inside a word or
 *  a URL (`?via=compatible;Evil/1`). */
function opensMarker(c: number): boolean {
  return c === 40 /* ( */ || c === 59 /* ; */ || c === 41 /* ) */ || c === 44 /* , */ || isBlank(c);
}

function read(userAgent: string): void {
  const n = userAgent.length;
  let start = 0;
  while (start < n && isBlank(userAgent.charCodeAt(start))) start++;
  let end = start;
  while (end < n && !endsProduct(userAgent.charCodeAt(end))) end++;
  readStart = start;
  readEnd = end;
  readFrom = 0;
  if (end - start !== 7 || userAgent.slice(start, end).toLowerCase() !== 'mozilla') return;
  // Browser-style crawler strings name the crawler after `compatible;`: in a comment, as RFC 9309
  // §2.2.1's own example (`Mozilla/5.0 (compatible; ExampleBot/0.1; …)`) and Googlebot do, or
  // outside one, as OpenAI publishes its agents' headers
  // (`Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot`).
  // The crawler is the first item after it that is one product (`Name` or `Name/version`) and no
  // browser or platform: crawlers send `(compatible; Linux x86_64; Mail.RU_Bot/2.0; …)`, and taking
  // `Linux` would apply only the `*` groups while the site names the crawler. (That name holds a dot,
  // which no token may: RobotsGate then asks for productToken instead of guessing.)
  readFrom = 2;
  let depth = 0;
  for (let i = end; i < n; i++) {
    const c = userAgent.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41) depth = depth > 0 ? depth - 1 : 0;
    else if ((c === 99 || c === 67) && i + 10 <= n && opensMarker(userAgent.charCodeAt(i - 1))) {
      if (userAgent.slice(i, i + 10).toLowerCase() !== 'compatible') continue;
      let j = i + 10;
      while (j < n && isBlank(userAgent.charCodeAt(j))) j++;
      if (userAgent.charCodeAt(j) !== 59) continue; // `(compatible)` or `compatiblefoo`: not the marker
      const found = crawlerItem(userAgent, j + 1, depth > 0);
      if (found >= 0) {
        readFrom = 1;
        compatibleStart = i;
        compatibleEnd = versionEnd(userAgent, readEnd);
        return;
      }
      // Nothing but browser and platform items (`(compatible; MSIE 9.0; Windows NT 6.1)`): a later
      // marker may still name the crawler.
      i = j;
    }
  }
}

/**
 * Find the crawler among the `;`-separated items from `from`, up to the comment's `)` when
 * `inComment`, else the string's end: sets readStart/readEnd and returns the name's start, or -1.
 */
function crawlerItem(userAgent: string, from: number, inComment: boolean): number {
  const n = userAgent.length;
  let k = from;
  while (k < n) {
    while (k < n && isBlank(userAgent.charCodeAt(k))) k++;
    const nameStart = k;
    while (k < n && !endsProduct(userAgent.charCodeAt(k))) k++;
    const nameEnd = k;
    // A version, then only blanks up to the item's end: one product.
    k = versionEnd(userAgent, k);
    while (k < n && isBlank(userAgent.charCodeAt(k))) k++;
    const c = k < n ? userAgent.charCodeAt(k) : -1;
    const itemEnds = c === -1 || c === 59 || c === 41;
    if (itemEnds && nameEnd > nameStart && isTokenChar(userAgent.charCodeAt(nameStart)) && !isBrowserProduct(userAgent.slice(nameStart, nameEnd))) {
      let url = false;
      for (let x = nameStart; x < nameEnd; x++) if (userAgent.charCodeAt(x) === 58 /* : */) url = true;
      if (!url) {
        readStart = nameStart;
        readEnd = nameEnd;
        return nameStart;
      }
    }
    // On to the next item: past this one's `;` (an item of several words is skipped whole).
    while (k < n && userAgent.charCodeAt(k) !== 59 && userAgent.charCodeAt(k) !== 41) k++;
    if (k >= n || (userAgent.charCodeAt(k) === 41 && inComment)) return -1;
    k++;
  }
  return -1;
}

/**
 * The crawler's product token, read from its User-Agent string: the leading product (up to the first
 * `/`, `;`, parenthesis, white space or the end), except when that product is `Mozilla`: then the
 * product after the first `compatible;`, inside a parenthesised comment or not.
 * - `'ExampleBot/2.1 (+https://bot.example/info)'` → `'ExampleBot'`
 * - `'Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot)'` → `'GPTBot'`
 * - `'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot'`
 *   (OpenAI's published form, `compatible;` outside the parentheses) → `'GPTBot'`
 * - `'Mozilla/5.0 (Windows NT 10.0) … Chrome/120.0 Safari/537.36'` → `'Mozilla'` (names no crawler:
 *   only `*` groups, and groups naming Mozilla, apply; RobotsGate refuses such a string)
 * The result may hold characters a token may not (`'Jävla-Bot/1'` → `'Jävla-Bot'`); such a crawler
 * is named by no group (see {@link isValidProductToken}).
 */
export function productToken(userAgent: string): string {
  read(userAgent);
  return readStart === 0 && readEnd === userAgent.length ? userAgent : userAgent.slice(readStart, readEnd);
}

/** How {@link productToken} read a User-Agent string: for explainers ("read from `compatible; GPTBot/1.1`"). */
export interface ProductTokenReading {
  readonly token: string;
  /** `leading`: the string's first product; `compatible`: the product after `compatible;` in a
   *  Mozilla string; `mozilla`: a Mozilla string with no such product, so it names no crawler. */
  readonly from: 'leading' | 'compatible' | 'mozilla';
  /** The text the token was read from (`compatible; GPTBot/1.1`, or the leading product with its version). */
  readonly text: string;
}

export function readProductToken(userAgent: string): ProductTokenReading {
  read(userAgent);
  const token = userAgent.slice(readStart, readEnd);
  if (readFrom === 1) return { token, from: 'compatible', text: userAgent.slice(compatibleStart, compatibleEnd) };
  return { token, from: readFrom === 2 ? 'mozilla' : 'leading', text: userAgent.slice(readStart, versionEnd(userAgent, readEnd)) };
}

/** True when `token` is a product token as robots-gate matches it: one or more letters, digits,
 *  `_` and `-` (digits go beyond RFC 9309 §2.2.1's grammar; see the note at the top of this file). */
export function isValidProductToken(token: string): boolean {
  if (token.length === 0) return false;
  for (let i = 0; i < token.length; i++) if (!isTokenChar(token.charCodeAt(i))) return false;
  return true;
}

/** True when `token` holds a digit: accepted, but outside RFC 9309 §2.2.1's letters-only grammar. */
export function hasDigit(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/**
 * Every product a User-Agent string names, in order, as written: a token followed by `/` (`GPTBot/1.1`),
 * `;` or `)` (`(compatible; img2dataset)`), or standing alone outside comments (`… AI2Bot (+https://…)`,
 * or the whole string). Words of comments (`like` in `(KHTML, like Gecko)`) and parts of URLs
 * (`gptbot` in `+https://openai.com/gptbot)`) are not products.
 */
export function productsOf(userAgent: string): string[] {
  const out: string[] = [];
  const n = userAgent.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = userAgent.charCodeAt(i);
    if (!isTokenChar(c)) {
      if (c === 40) depth++;
      else if (c === 41 && depth > 0) depth--;
      i++;
      continue;
    }
    const start = i;
    while (i < n && isTokenChar(userAgent.charCodeAt(i))) i++;
    const before = start === 0 ? 32 : userAgent.charCodeAt(start - 1);
    const after = i === n ? -1 : userAgent.charCodeAt(i);
    const opens = isBlank(before) || before === 40 || before === 59 || before === 44 /* , */;
    if (after === 47) {
      if (opens) out.push(userAgent.slice(start, i));
      // The version (`/v1.4.8`) names nothing.
      i = versionEnd(userAgent, i);
    } else if (opens && (after === 59 || after === 41 || (depth === 0 && (after === -1 || isBlank(after) || after === 40)))) {
      out.push(userAgent.slice(start, i));
    } else {
      // The rest of a word that is no product (`www.example.com`): skip it whole.
      while (i < n && !endsProduct(userAgent.charCodeAt(i)) && userAgent.charCodeAt(i) !== 44) i++;
    }
  }
  return out;
}

/** Words crawler operators put in their crawlers' names (`AI2Bot`, `Applebot`, `360Spider`, `Crawler4j`). */
const CRAWLER_WORD = /bot|spider|crawl/i;

/**
 * The products of a User-Agent string that likely name its crawler, in order (see {@link productsOf}):
 * valid product tokens, no browser or platform (`Mozilla`, `Safari`, `iPhone`), whose name holds
 * `bot`, `spider` or `crawl` in any case. For a header {@link productToken} reads as `Mozilla` (no
 * product after `compatible;`), so a refusal can suggest the name to pass as the token instead:
 * - `'Mozilla/5.0 (compatible) AI2Bot (+https://www.allenai.org/crawler)'` → `['AI2Bot']`
 * - `'Mozilla/5.0 (iPhone; …) … Safari/604.1 (Applebot/0.1; +http://www.apple.com/go/applebot)'` → `['Applebot']`
 * - a bare browser string → `[]`
 * A guess from the name alone: the crawler's token is whatever sites write for it, which this
 * only suggests and never uses.
 */
export function likelyCrawlerProducts(userAgent: string): string[] {
  return productsOf(userAgent).filter((p) => isValidProductToken(p) && !isBrowserProduct(p) && CRAWLER_WORD.test(p));
}

/** Does `userAgent` name `token` as a product (see {@link productsOf}), case-insensitively? */
export function namesProduct(userAgent: string, token: string): boolean {
  const t = token.toLowerCase();
  if (userAgent.trim().toLowerCase() === t) return true;
  return productsOf(userAgent).some((p) => p.toLowerCase() === t);
}

/** Whether the value the last {@link userAgentLineToken} call read was a token as a whole (no
 *  diagnostic needed). Module state, so a parse builds no object per user-agent line. */
export let lineTokenExact = false;

/**
 * The token a `user-agent` line names, lower-cased: `*` for the wildcard, else the leading run of
 * letters, digits, `_` and `-` of its value (`ExampleBot/1.0`, `ExampleBot Images` and `AI2Bot` name
 * `examplebot`, `examplebot`, `ai2bot`); `''` when the value starts with any other character.
 * Sets {@link lineTokenExact}.
 */
export function userAgentLineToken(value: string): string {
  // Like Google's parser, `*` is the wildcard only alone or followed by white space (`* # all`).
  if (value.charCodeAt(0) === 42 /* * */) {
    lineTokenExact = value.length === 1;
    if (value.length === 1) return '*';
    const c = value.charCodeAt(1);
    return c === 32 || c === 9 ? '*' : '';
  }
  let end = 0;
  let upper = false;
  for (; end < value.length; end++) {
    const c = value.charCodeAt(end);
    if (!isTokenChar(c)) break;
    if (c >= 65 && c <= 90) upper = true;
  }
  lineTokenExact = end === value.length;
  const token = end === value.length ? value : value.slice(0, end);
  return upper ? token.toLowerCase() : token;
}
