// Reading the crawl's input: one URL a line, from a file or stdin. Blank lines and `#` comments
// are skipped; a line that is not an http(s) URL is reported and skipped, never fatal.
import fs from 'node:fs';
import { missingSchemeHint, parseHttpUrl } from '../fetcher/url.js';

/** A URL ready for the frontier: normalised (WHATWG form, fragment dropped). */
export interface InputUrl {
  readonly url: string;
  /** `URL.host`: lower-case host, plus the port when not the default. */
  readonly host: string;
  /** 1-based line number in the input. */
  readonly line: number;
}

/** A line that is not a usable URL. */
export interface InvalidLine {
  readonly line: number;
  /** The line as given (trimmed, cut to 2,000 characters; credentials replaced by `***`). */
  readonly text: string;
  /** `invalid-url`, `unsupported-scheme`, or `credentials` (a user:password@ part, which is
   *  never sent and never recorded). */
  readonly reason: 'invalid-url' | 'unsupported-scheme' | 'credentials';
  readonly message: string;
}

export interface UrlList {
  /** Distinct URLs in first-seen order. */
  readonly urls: InputUrl[];
  readonly invalid: InvalidLine[];
  /** Lines that repeated an earlier URL (after normalisation). */
  readonly duplicates: number;
  /** Lines read in all (blank lines and comments included): what "no URL in it" is out of. */
  readonly lines: number;
}

/**
 * Normalise one input line. Returns undefined for blank lines and comments.
 * The fragment is dropped: it is never sent, so two URLs that differ only there are one fetch.
 */
export function parseUrlLine(text: string, line: number): InputUrl | InvalidLine | undefined {
  // trim() also drops a BOM (U+FEFF) that starts a file saved by some editors.
  const t = text.trim();
  if (t === '' || t.startsWith('#')) return undefined;
  let u: URL;
  try {
    u = parseHttpUrl(t);
  } catch (err) {
    const scheme = (err as { code?: string }).code === 'ERR_UNSUPPORTED_SCHEME';
    return {
      line,
      text: t.length > 2000 ? t.slice(0, 2000) : t,
      reason: scheme ? 'unsupported-scheme' : 'invalid-url',
      message: scheme ? `unsupported scheme (only http and https): ${printable(t)}` : `not a URL: ${printable(t)}${missingSchemeHint(t)}`,
    };
  }
  // Credentials in the list would be recorded in every row, log and summary, and fetch() refuses
  // to send them anyway: the line is skipped, and its password is not kept.
  if (u.username || u.password) {
    u.username = '***';
    u.password = '';
    return { line, text: u.href, reason: 'credentials', message: `URL carries credentials (user:password@), which are never sent: ${printable(u.href)}` };
  }
  // The first '#' of a serialised URL starts its fragment (anywhere else it is escaped): cut
  // there, rather than set `hash`, which serialises the URL again.
  const href = u.href;
  const hash = href.indexOf('#');
  return { url: hash < 0 ? href : href.slice(0, hash), host: u.host, line };
}

/** At most 200 characters of a line for a message, control characters shown as \xNN, so a list
 *  with binary bytes cannot send escape sequences to the terminal. */
function printable(s: string): string {
  const cut = s.length > 200 ? `${s.slice(0, 200)}…` : s;
  return cut.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Read a URL list from `file` (`-` for stdin).
 *  @throws the file system error (ENOENT, EISDIR, …) when the file cannot be read. */
export async function readUrlList(file: string): Promise<UrlList> {
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  // Surface open errors (ENOENT, EISDIR) before reading.
  if (file !== '-') {
    await new Promise<void>((resolve, reject) => {
      (input as fs.ReadStream).once('open', () => resolve());
      input.once('error', reject);
    });
  }
  // Characters whole across chunks (a multi-byte one split by a chunk's end).
  input.setEncoding('utf8');
  const urls: InputUrl[] = [];
  const invalid: InvalidLine[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  let n = 0;
  const take = (text: string) => {
    n++;
    const r = parseUrlLine(text, n);
    if (r === undefined) return;
    if ('reason' in r) invalid.push(r);
    else if (seen.has(r.url)) duplicates++;
    else {
      seen.add(r.url);
      urls.push(r);
    }
  };
  // Lines end at LF, CR LF or a lone CR, as readline's did; split a chunk at a time (readline's
  // promise per line was two thirds of reading a 20,000-line list). Only each new chunk is
  // scanned: a line longer than a chunk is kept as pieces, joined once at its end (rescanning
  // it with every chunk took 29 s for one 40 MB line).
  let pieces: string[] = [];
  let crEnded = false;
  for await (let chunk of input as AsyncIterable<string>) {
    // The previous chunk ended in CR: an LF opening this one ends that same line.
    if (crEnded && chunk.charCodeAt(0) === 10) chunk = chunk.slice(1);
    crEnded = chunk.endsWith('\r');
    const lines = chunk.split(LINE_END);
    const last = lines.pop()!;
    if (lines.length > 0) {
      if (pieces.length > 0) {
        pieces.push(lines[0]!);
        lines[0] = pieces.join('');
        pieces = [];
      }
      for (const line of lines) take(line);
    }
    if (last !== '') pieces.push(last);
  }
  if (pieces.length > 0) take(pieces.join(''));
  return { urls, invalid, duplicates, lines: n };
}

const LINE_END = /\r\n|\n|\r/;
