// The one tokenizer (DESIGN.md "Style", after google/robotstxt): it walks the text once and reports each
// line to a handler. The matcher's model builder is one handler; the linter reads that same model.
//
// Line syntax (RFC 9309 §2.2): `key : value # comment`. Keys are case-insensitive; white space around
// the key, the colon and the value is ignored; LF, CR LF and a lone CR each end a line. A NUL ends
// what the line says: Google's reference parser hands each line on as a C string, so
// `Disallow: /private\0junk` is the rule `/private` there, and a crawler following it must not read
// `/private%00junk` here.

/** The directive a line names. */
export enum Key {
  UserAgent = 1,
  Allow = 2,
  Disallow = 3,
  Sitemap = 4,
  CrawlDelay = 5,
  Unknown = 6,
  /** `Content-Usage: [path] prefs` (IETF aipref attach draft): usage preferences, not access. */
  ContentUsage = 7,
  /** `Content-Signal: search=yes, ai-train=no` (Cloudflare's convention): usage preferences, not access. */
  ContentSignal = 8,
}

/** Why a line was accepted only leniently (reported to the handler's `lenient`). */
export enum Leniency {
  /** The key is a known misspelling (`dissallow`, `useragent`, ...). */
  Misspelled = 1,
  /** `key value` with white space instead of a colon. */
  MissingColon = 2,
}

/**
 * Receives the lines. Positions are offsets into the tokenized text, so a handler slices only what it
 * keeps; columns are `offset - lineStart + 1`. Values are trimmed and exclude the comment.
 */
export interface LineHandler {
  /** A `key: value` line. */
  directive(key: Key, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, line: number, lineStart: number): void;
  /** The line was accepted only thanks to a tolerance beyond the RFC. Called before `directive`. */
  lenient(kind: Leniency, keyStart: number, keyEnd: number, line: number, lineStart: number): void;
  /** A non-blank line that is not `key: value` (and not a comment). */
  invalid(line: number, column: number): void;
  /** A NUL byte (at `column`) ended the line before its end or its comment. Called before the
   *  line's other callbacks, also when nothing is left of it. */
  nul(line: number, column: number): void;
}

/**
 * Tokenize `text`, calling `handler` for each non-blank, non-comment line in order. Never throws.
 * @param nul false when the caller knows the text holds no NUL (the search is skipped).
 */
export function tokenize(text: string, handler: LineHandler, nul?: boolean): void {
  const n = text.length;
  // Next positions of LF, CR, '#' and ':' at or after the cursor, found with native indexOf and reused
  // across lines, so the text is scanned once however its lines end.
  let nextLf = -1;
  let nextCr = -1;
  let nextHash = -1;
  let nextColon = -1;
  let nextNul = nul === false ? n : -1;
  let pos = 0;
  let line = 0;
  while (pos < n) {
    line++;
    if (nextLf < pos) {
      nextLf = text.indexOf('\n', pos);
      if (nextLf < 0) nextLf = n;
    }
    if (nextCr < pos) {
      nextCr = text.indexOf('\r', pos);
      if (nextCr < 0) nextCr = n;
    }
    const lineEnd = nextLf < nextCr ? nextLf : nextCr;
    const lineStart = pos;
    pos = lineEnd + (lineEnd === nextCr && nextLf === lineEnd + 1 ? 2 : 1);

    let end = lineEnd;
    if (nextHash < lineStart) {
      nextHash = text.indexOf('#', lineStart);
      if (nextHash < 0) nextHash = n;
    }
    if (nextHash < end) end = nextHash;
    if (nextNul < lineStart) {
      nextNul = text.indexOf('\0', lineStart);
      if (nextNul < 0) nextNul = n;
    }
    if (nextNul < end) {
      end = nextNul;
      handler.nul(line, nextNul - lineStart + 1);
    }
    let a = lineStart;
    while (a < end && isSpace(text.charCodeAt(a))) a++;
    while (end > a && isSpace(text.charCodeAt(end - 1))) end--;
    if (a === end) continue;

    if (nextColon < a) {
      nextColon = text.indexOf(':', a);
      if (nextColon < 0) nextColon = n;
    }
    let keyEnd: number;
    let valueStart: number;
    let missingColon = false;
    if (nextColon < end) {
      keyEnd = nextColon;
      while (keyEnd > a && isSpace(text.charCodeAt(keyEnd - 1))) keyEnd--;
      valueStart = nextColon + 1;
      while (valueStart < end && isSpace(text.charCodeAt(valueStart))) valueStart++;
      if (keyEnd === a) {
        handler.invalid(line, a - lineStart + 1);
        continue;
      }
    } else {
      // Google's reference parser accepts `key value` when exactly two words are separated by
      // white space; so do we, with a diagnostic.
      keyEnd = a;
      while (keyEnd < end && !isSpace(text.charCodeAt(keyEnd))) keyEnd++;
      valueStart = keyEnd;
      while (valueStart < end && isSpace(text.charCodeAt(valueStart))) valueStart++;
      let k = valueStart;
      while (k < end && !isSpace(text.charCodeAt(k))) k++;
      if (valueStart === end || k !== end) {
        handler.invalid(line, a - lineStart + 1);
        continue;
      }
      missingColon = true;
    }
    const kind = classifyKey(text, a, keyEnd);
    const key = kind >> 1;
    if (missingColon) {
      if (key === Key.Unknown) {
        handler.invalid(line, a - lineStart + 1);
        continue;
      }
      handler.lenient(Leniency.MissingColon, a, keyEnd, line, lineStart);
    }
    if (kind & 1) handler.lenient(Leniency.Misspelled, a, keyEnd, line, lineStart);
    handler.directive(key, a, keyEnd, valueStart, end, line, lineStart);
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12;
}

// Known keys, lower-case, with their directive; `true` marks a misspelling that Google's reference
// parser accepts (robots.cc, `kAllowFrequentTypos`), so real files written with it keep working.
const KEYS: readonly (readonly [string, Key, boolean])[] = [
  ['user-agent', Key.UserAgent, false],
  ['useragent', Key.UserAgent, true],
  ['user agent', Key.UserAgent, true],
  ['allow', Key.Allow, false],
  ['disallow', Key.Disallow, false],
  ['dissallow', Key.Disallow, true],
  ['dissalow', Key.Disallow, true],
  ['disalow', Key.Disallow, true],
  ['diasllow', Key.Disallow, true],
  ['disallaw', Key.Disallow, true],
  ['sitemap', Key.Sitemap, false],
  ['site-map', Key.Sitemap, true],
  ['crawl-delay', Key.CrawlDelay, false],
  ['content-usage', Key.ContentUsage, false],
  ['content-signal', Key.ContentSignal, false],
];

/** Returns `key << 1 | misspelled`. Compares in place, case-insensitively, without allocating. */
function classifyKey(text: string, start: number, end: number): number {
  // Most lines name a canonical key, told apart by length alone. `| 32` lower-cases a letter and
  // leaves `-` as it is; only CR (13) would also become `-`, and a key never holds a line break.
  let name: string;
  let key: Key;
  switch (end - start) {
    case 10:
      name = 'user-agent';
      key = Key.UserAgent;
      break;
    case 8:
      name = 'disallow';
      key = Key.Disallow;
      break;
    case 5:
      name = 'allow';
      key = Key.Allow;
      break;
    case 7:
      name = 'sitemap';
      key = Key.Sitemap;
      break;
    default:
      return classifyAnyKey(text, start, end);
  }
  for (let j = 0; j < name.length; j++) {
    if ((text.charCodeAt(start + j) | 32) !== name.charCodeAt(j)) return classifyAnyKey(text, start, end);
  }
  return key << 1;
}

/** classifyKey against every known key and misspelling. */
function classifyAnyKey(text: string, start: number, end: number): number {
  const len = end - start;
  outer: for (let i = 0; i < KEYS.length; i++) {
    const entry = KEYS[i]!;
    const name = entry[0];
    if (name.length !== len) continue;
    for (let j = 0; j < len; j++) {
      let c = text.charCodeAt(start + j);
      if (c >= 65 && c <= 90) c += 32;
      if (c !== name.charCodeAt(j)) continue outer;
    }
    return (entry[1] << 1) | (entry[2] ? 1 : 0);
  }
  return Key.Unknown << 1;
}
