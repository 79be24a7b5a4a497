// A sitemap body as decompressed chunks, read only as fast as they are used. fetch has already
// undone a Content-Encoding; a body that is itself gzip (`.xml.gz`, or any body starting with the
// gzip magic bytes) is inflated here, chunk by chunk, so a 10 GB bomb costs what is read of it.
import zlib from 'node:zlib';

/** What the reader learned about the compressed side, for the ratio cap. */
export interface BodyMeter {
  /** The body was gzip (inflated here), or had a gzip/deflate/br Content-Encoding. */
  gzip: boolean;
  /** Compressed bytes seen so far; undefined when unknown (a Content-Encoding without
   *  Content-Length: fetch hides the encoded size, the byte cap is the bound then). */
  compressed: number | undefined;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/**
 * Yield the body's decompressed bytes. Breaking out of the loop stops reading (the response
 * stream is cancelled, the inflater destroyed).
 * @throws the stream's error (reset, abort, corrupt or cut gzip: `Z_DATA_ERROR`, `Z_BUF_ERROR`).
 */
export async function* decodedChunks(res: Response, meter: BodyMeter): AsyncGenerator<Uint8Array> {
  if (res.body === null) return;
  const encoding = (res.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    meter.gzip = true;
    const length = Number(res.headers.get('content-length'));
    meter.compressed = Number.isFinite(length) && length > 0 ? length : undefined;
  } else meter.compressed = 0;
  const reader = res.body.getReader();
  let inflater: zlib.Gunzip | undefined;
  try {
    const first = await reader.read();
    if (first.done) return;
    const head = first.value;
    if (head.byteLength >= 2 && head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1) {
      meter.gzip = true;
      meter.compressed = 0;
      inflater = zlib.createGunzip();
      yield* inflate(reader, head, inflater, meter);
      return;
    }
    if (meter.compressed !== undefined && encoding === '') meter.compressed += head.byteLength;
    yield head;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (meter.compressed !== undefined && encoding === '') meter.compressed += value.byteLength;
      yield value;
    }
  } finally {
    inflater?.destroy();
    reader.cancel().catch(() => {});
  }
}

/** Feed the inflater from the response as it asks for more (backpressure both ways). */
async function* inflate(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  head: Uint8Array,
  inflater: zlib.Gunzip,
  meter: BodyMeter,
): AsyncGenerator<Uint8Array> {
  let failed: unknown;
  const waitDrain = () =>
    new Promise<void>((resolve) => {
      inflater.once('drain', resolve);
      inflater.once('close', resolve);
    });
  const pump = async () => {
    let chunk: Uint8Array | undefined = head;
    while (chunk !== undefined && !inflater.destroyed) {
      meter.compressed = (meter.compressed ?? 0) + chunk.byteLength;
      if (!inflater.write(chunk)) await waitDrain();
      if (inflater.destroyed) return;
      const r = await reader.read();
      chunk = r.done ? undefined : r.value;
    }
    if (!inflater.destroyed) inflater.end();
  };
  pump().catch((err) => {
    failed = err;
    inflater.destroy(err as Error);
  });
  for await (const out of inflater) yield out as Uint8Array;
  if (failed !== undefined) throw failed;
}

/** The first bytes' XML declaration encoding, read as Latin-1 (ASCII-compatible encodings only). */
const DECLARED = /^(?:\u00ef\u00bb\u00bf)?\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._:-]*)["']/;

/**
 * The decoder a sitemap's first bytes ask for: a UTF-16 byte-order mark, else the XML
 * declaration's `encoding`, else UTF-8. sitemaps.org requires UTF-8; a file that declares
 * another encoding is still read as it says (decoded as UTF-8, `café` in ISO-8859-1 became
 * `caf%EF%BF%BD`, a URL the site never listed), and the departure goes to `problems`.
 */
export function sitemapDecoder(head: Uint8Array, problems: string[]): TextDecoder {
  if (head[0] === 0xff && head[1] === 0xfe) return declared('utf-16le', 'a UTF-16LE byte-order mark', problems);
  if (head[0] === 0xfe && head[1] === 0xff) return declared('utf-16be', 'a UTF-16BE byte-order mark', problems);
  const m = DECLARED.exec(Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 512)).toString('latin1'));
  if (m === null) return new TextDecoder('utf-8');
  return declared(m[1]!, `encoding="${m[1]}"`, problems);
}

function declared(label: string, how: string, problems: string[]): TextDecoder {
  let d: TextDecoder;
  try {
    d = new TextDecoder(label);
  } catch {
    problems.push(`${how} names no encoding known here: read as UTF-8, as sitemaps.org requires`);
    return new TextDecoder('utf-8');
  }
  if (d.encoding !== 'utf-8') problems.push(`${how}: read as ${d.encoding}, though sitemaps.org requires UTF-8`);
  return d;
}
