// Pattern compiling (RFC 9309 §2.2.3). A pattern is split at each `*` into literal pieces; a `$` at the
// very end anchors the last piece to the end of the URL. Matching walks the pieces greedily, left to
// right, each found with indexOf from where the previous one ended: the leftmost placement of every
// piece leaves the most room for the rest, so greedy is exact, and the time is bounded by
// path length × pattern length with no backtracking (a translated RegExp of `/*a*a*a*a*a*b` takes
// seconds on a 100-character path).

import { normalizeOctets } from './normalize.js';

export interface CompiledPattern {
  /** Literal pieces in normal form; pieces[0] must match at the start of the path. At least one. */
  readonly pieces: readonly string[];
  /** A trailing `$`: the last piece must end exactly at the end of the path. */
  readonly anchored: boolean;
  /** Octets in the normalised pattern, `*` and `$` included: the longest match wins (RFC 9309 §2.2.2). */
  readonly priority: number;
}

/** Compile a non-empty pattern as written in the file. */
export function compilePattern(pattern: string): CompiledPattern {
  let body = pattern;
  let anchored = false;
  // Only an unescaped `$` at the end anchors; `%24` is a literal `$` (§2.2.3), and so is a `$` elsewhere.
  if (body.charCodeAt(body.length - 1) === 36) {
    anchored = true;
    body = body.slice(0, -1);
  }
  if (body.indexOf('*') < 0) {
    const only = normalizeOctets(body);
    return { pieces: [only], anchored, priority: octets(only) + (anchored ? 1 : 0) };
  }
  const raw = body.split('*');
  const pieces: string[] = [];
  let priority = raw.length - 1 + (anchored ? 1 : 0);
  for (let i = 0; i < raw.length; i++) {
    const piece = normalizeOctets(raw[i]!);
    priority += octets(piece);
    // Consecutive `*` are one wildcard; keep the first piece even when empty (pattern starts with `*`).
    if (i > 0 && piece === '' && i < raw.length - 1) continue;
    pieces.push(piece);
  }
  // A trailing `*` matches anything, including nothing: dropping it changes the match not at all. It
  // still counts toward the octets, as the RFC counts the pattern's octets and Google's parser does
  // (`Disallow: /*` beats `Allow: /` on `/bar`, a strict conformance case).
  if (!anchored && pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
  return { pieces, anchored, priority };
}

/**
 * Octets of a normalised piece as the pattern's normal form writes it: a literal `*` or `$` (decoded
 * from `%2A`/`%24` so it compares equal to the URL's) is written `%2A`/`%24`, three octets.
 */
function octets(piece: string): number {
  let n = piece.length;
  if (piece.indexOf('*') >= 0 || piece.indexOf('$') >= 0) {
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (c === 42 || c === 36) n += 2;
    }
  }
  return n;
}

/** A key equal for two patterns exactly when they match the same URLs the same way (for merging). */
export function patternKey(p: CompiledPattern): string {
  // A literal `*`/`$` (from %2A/%24) keeps its escape so `/a%2A` and `/a*` stay different.
  let key = '';
  for (let i = 0; i < p.pieces.length; i++) {
    const piece = p.pieces[i]!;
    key += (i > 0 ? '*' : '') + (/[*$]/.test(piece) ? piece.replace(/\*/g, '%2A').replace(/\$/g, '%24') : piece);
  }
  return p.anchored ? key + '$' : key;
}

/**
 * Do the pieces after the first match text[pos, end), the first piece having ended at `pos`?
 * `rest` holds pieces[1..]; `anchored` pins the last piece to `end`. Allocates nothing.
 */
export function matchRest(rest: readonly string[] | null, anchored: boolean, text: string, pos: number, end: number): boolean {
  if (rest === null) return !anchored || pos === end;
  const last = rest.length - 1;
  for (let i = 0; i < last; i++) {
    const piece = rest[i]!;
    const at = find(text, piece, pos, end);
    if (at < 0) return false;
    pos = at + piece.length;
  }
  const tail = rest[last]!;
  if (anchored) {
    const at = end - tail.length;
    return at >= pos && startsOctet(text, at) && text.startsWith(tail, at);
  }
  return find(text, tail, pos, end) >= 0;
}

/**
 * Leftmost occurrence of `piece` in text[pos, end) that starts on an octet boundary, or -1. In normal
 * form every `%` opens a three-character escape of one octet, so a piece must not start on one of
 * its hex digits (`*A` must not match the `A` of `%C3%A4`).
 */
function find(text: string, piece: string, pos: number, end: number): number {
  let at = text.indexOf(piece, pos);
  while (at >= 0 && !startsOctet(text, at)) at = text.indexOf(piece, at + 1);
  return at >= 0 && at + piece.length <= end ? at : -1;
}

function startsOctet(text: string, at: number): boolean {
  return text.charCodeAt(at - 1) !== 37 && text.charCodeAt(at - 2) !== 37;
}
