// Bytes (or a string) to the text the tokenizer scans: BOM skipped, size capped, invalid UTF-8 tolerated
// (each invalid octet kept as its %XX escape).
// No Node built-ins: TextDecoder is a web global.

/** RFC 9309 §2.5: parsers MUST parse at least 500 KiB. Our default limit is exactly that. */
export const DEFAULT_MAX_BYTES = 512_000;

export interface DecodedBody {
  readonly text: string;
  readonly bom: boolean;
  readonly invalidUtf8: boolean;
  /** The body was UTF-16 with a byte-order mark, and was decoded as such (`le` or `be`). */
  readonly utf16?: 'le' | 'be';
  /** Bytes ignored past maxBytes (including the dropped partial line); 0 when nothing was cut. */
  readonly truncatedBytes: number;
  /** False when the text is known to hold no NUL (see tokenize); undefined when not looked for. */
  readonly nul?: boolean;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Octets from which a NUL is looked for in the octets (see decodeBody): below, the call costs more. */
const NUL_BY_OCTETS_FROM = 4096;

/** Decode `body`, keeping at most `maxBytes` UTF-8 octets of whole lines. Never throws. */
export function decodeBody(body: string | Uint8Array | ArrayBuffer, maxBytes: number): DecodedBody {
  if (typeof body === 'string') return fromString(body, maxBytes);
  if (body instanceof ArrayBuffer) body = new Uint8Array(body);
  if (!(body instanceof Uint8Array)) return fromString(String(body ?? ''), maxBytes);
  // RFC 9309 §2.2 says UTF-8, but real servers send UTF-16 files with a BOM (store.usps.com and
  // www.myvue.com do). Read as UTF-8, every line would be "U\0s\0e\0r..." and the whole file lost,
  // which opens the site; a UTF-16 BOM is unambiguous (FF FE / FE FF are never valid UTF-8), so we
  // decode the file as its author wrote it and report that it is not UTF-8.
  if (body.length >= 2 && ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff))) {
    return fromUtf16(body, body[0] === 0xff ? 'le' : 'be', maxBytes);
  }
  let start = 0;
  let bom = false;
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
    start = 3;
    bom = true;
  }
  let end = body.length;
  let truncatedBytes = 0;
  if (end - start > maxBytes) {
    end = start + maxBytes;
    // §2.5: content past the limit is ignored; the line the cut falls in is incomplete, so drop it
    // unless the cut lands exactly on a line end.
    if (body[end] !== 0x0a && body[end] !== 0x0d) {
      let i = end - 1;
      while (i >= start && body[i] !== 0x0a && body[i] !== 0x0d) i--;
      end = i + 1;
    }
    truncatedBytes = body.length - end;
  }
  const view = start === 0 && end === body.length ? body : body.subarray(start, end);
  try {
    const text = strictDecoder.decode(view);
    // Fewer characters than octets: the text has non-ASCII characters, and may be a two-byte string,
    // in which V8 finds a NUL with a plain loop (1.6 ms for 2 MB) where the octets' own indexOf
    // (memchr for a Node Buffer) takes 0.04 ms. In a one-byte string the text's indexOf is as fast.
    if (text.length !== view.length && view.length >= NUL_BY_OCTETS_FROM) return { text, bom, invalidUtf8: false, truncatedBytes, nul: view.indexOf(0) >= 0 };
    return { text, bom, invalidUtf8: false, truncatedBytes };
  } catch {
    return { text: escapeInvalidOctets(view), bom, invalidUtf8: true, truncatedBytes };
  }
}

const HEX = '0123456789ABCDEF';

/**
 * Decode `view`, writing each octet that is not part of a valid UTF-8 sequence as its `%XX` escape.
 * RFC 9309 §2.2.2 compares octets: a Latin-1 file's `Disallow: /caf\xE9` means the octets
 * `/caf` E9, which a URL carries as `/caf%E9` (Google's parser escapes raw octets the same way).
 * Read as U+FFFD instead, the rule would become `/caf%EF%BF%BD`, match nothing, and allow the path.
 * Only octets >= 0x80 can be invalid, so an escape never names an unreserved character.
 */
function escapeInvalidOctets(view: Uint8Array): string {
  let out = '';
  let runStart = 0;
  let i = 0;
  const n = view.length;
  while (i < n) {
    const len = validSequenceLength(view, i, n);
    if (len > 0) {
      i += len;
      continue;
    }
    if (i > runStart) out += strictDecoder.decode(view.subarray(runStart, i));
    const b = view[i]!;
    out += '%' + HEX[b >> 4] + HEX[b & 15];
    runStart = ++i;
  }
  if (runStart < n) out += strictDecoder.decode(view.subarray(runStart, n));
  return out;
}

/** Octets of the well-formed UTF-8 sequence at `i` (Unicode Table 3-7: no overlongs, no
 *  surrogates, nothing past U+10FFFF), or 0 when the octet there starts none. */
function validSequenceLength(v: Uint8Array, i: number, n: number): number {
  const b = v[i]!;
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < n && v[i + k]! >= lo && v[i + k]! <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const lo = b === 0xe0 ? 0xa0 : 0x80;
    const hi = b === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const lo = b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

const utf16Decoders = {
  le: new TextDecoder('utf-16le', { fatal: false, ignoreBOM: true }),
  be: new TextDecoder('utf-16be', { fatal: false, ignoreBOM: true }),
};

/** A UTF-16 body after its BOM; maxBytes counts the file's own octets (RFC 9309 §2.5 limits the file). */
function fromUtf16(body: Uint8Array, endian: 'le' | 'be', maxBytes: number): DecodedBody {
  const payload = body.length - 2;
  const kept = payload > maxBytes ? maxBytes - (maxBytes % 2) : payload;
  let text = utf16Decoders[endian].decode(body.subarray(2, 2 + kept));
  let truncatedBytes = 0;
  if (kept < payload) {
    // §2.5: the line the cut falls in is incomplete: drop it, unless the cut is at a line end.
    const next = endian === 'le' ? body[2 + kept]! | (body[3 + kept]! << 8) : (body[2 + kept]! << 8) | body[3 + kept]!;
    if (next !== 10 && next !== 13) {
      let j = text.length - 1;
      while (j >= 0 && text.charCodeAt(j) !== 10 && text.charCodeAt(j) !== 13) j--;
      text = text.slice(0, j + 1);
    }
    truncatedBytes = payload - 2 * text.length;
  }
  return { text, bom: false, invalidUtf8: false, utf16: endian, truncatedBytes: Math.max(0, truncatedBytes) };
}

/**
 * The text of a robots.txt body exactly as the parser reads it (BOM skipped, UTF-16 with a BOM
 * decoded, invalid UTF-8 tolerated, nothing cut): for tools that show the file's lines next to the
 * parser's line numbers. Never throws.
 */
export function decodeRobotsText(body: string | Uint8Array | ArrayBuffer): string {
  return decodeBody(body, Number.MAX_SAFE_INTEGER).text;
}

function fromString(s: string, maxBytes: number): DecodedBody {
  let start = 0;
  let bom = false;
  if (s.charCodeAt(0) === 0xfeff) {
    start = 1;
    bom = true;
  }
  // Each UTF-16 code unit encodes to at most 3 UTF-8 octets, so short strings cannot exceed the limit.
  if ((s.length - start) * 3 <= maxBytes) return { text: start ? s.slice(start) : s, bom, invalidUtf8: false, truncatedBytes: 0 };
  let bytes = 0;
  let i = start;
  const n = s.length;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
  }
  if (i >= n) return { text: start ? s.slice(start) : s, bom, invalidUtf8: false, truncatedBytes: 0 };
  let end = i;
  const atLineEnd = s.charCodeAt(end) === 10 || s.charCodeAt(end) === 13;
  if (!atLineEnd) {
    let j = end - 1;
    while (j >= start && s.charCodeAt(j) !== 10 && s.charCodeAt(j) !== 13) j--;
    end = j + 1;
  }
  let truncatedBytes = 0;
  for (let k = end; k < n; k++) {
    const c = s.charCodeAt(k);
    truncatedBytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
  }
  return { text: s.slice(start, end), bom, invalidUtf8: false, truncatedBytes };
}
