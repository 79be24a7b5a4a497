// Bytes (or a string) to the text the tokenizer scans: BOM skipped, size capped, invalid UTF-8 tolerated.
// No Node built-ins: TextDecoder is a web global.

/** RFC 9309 §2.5: parsers MUST parse at least 500 KiB. Our default limit is exactly that. */
export const DEFAULT_MAX_BYTES = 512_000;

export interface DecodedBody {
  readonly text: string;
  readonly bom: boolean;
  readonly invalidUtf8: boolean;
  /** Bytes ignored past maxBytes (including the dropped partial line); 0 when nothing was cut. */
  readonly truncatedBytes: number;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decode `body`, keeping at most `maxBytes` UTF-8 octets of whole lines. Never throws. */
export function decodeBody(body: string | Uint8Array | ArrayBuffer, maxBytes: number): DecodedBody {
  if (typeof body === 'string') return fromString(body, maxBytes);
  if (body instanceof ArrayBuffer) body = new Uint8Array(body);
  if (!(body instanceof Uint8Array)) return fromString(String(body ?? ''), maxBytes);
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
    return { text: strictDecoder.decode(view), bom, invalidUtf8: false, truncatedBytes };
  } catch {
    return { text: lenientDecoder.decode(view), bom, invalidUtf8: true, truncatedBytes };
  }
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
