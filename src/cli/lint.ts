// `robots-gate lint FILE|URL`: every diagnostic of the parser (the same parse matching uses, plus
// the parser's costlier lint-only checks), printed like a compiler's.
import { open } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { decodeRobotsText, parseRobotsTxt } from '../parser/index.js';
import type { Diagnostic } from '../parser/types.js';
import { allDiagnostics } from '../web/diagnostics.js';
import { fetchRobotsForTool } from '../web/fetch-robots.js';
import { MAX_TIMEOUT_MS } from '../fetcher/robots-fetcher.js';
import { plural } from '../report/format.js';
import { fsProblem } from './fs-words.js';
import { missingSchemeHint } from '../fetcher/url.js';

/** Exit codes, as `--help` documents them. */
export const LINT_EXIT = { clean: 0, warnings: 1, errors: 2, unreadable: 3 } as const;

/** Bytes read from a FILE at most: well past the parser's 500 KiB, so it reports the excess itself. */
const MAX_READ_BYTES = 2 * 1024 * 1024;

interface LintOptions {
  json?: boolean;
  url?: string;
  resolve: string[];
  timeout: string;
}

interface Source {
  /** How diagnostics name the file: the path, `-`, or the robots.txt URL. */
  name: string;
  bytes: Uint8Array;
  /** Octets the source had past `bytes` (reading stops at MAX_READ_BYTES); `Infinity` when standard
   *  input was cut and its rest is unknown. */
  unread?: number;
  /** The URL it came from, to resolve relative Sitemap lines. */
  url?: string;
}

class UnreadableError extends Error {}

async function readLimited(file: string): Promise<{ bytes: Uint8Array; unread: number }> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      total += chunk.length;
      if (total > MAX_READ_BYTES) break;
    }
    const all = Buffer.concat(chunks);
    return { bytes: all.subarray(0, MAX_READ_BYTES), unread: all.length > MAX_READ_BYTES ? Infinity : 0 };
  }
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    // `lint www.example.com` meant the site: say how to ask for it.
    const site = (err as NodeJS.ErrnoException).code === 'ENOENT' && missingSchemeHint(file) !== '';
    throw new UnreadableError(`cannot read ${file}: ${fsProblem(err)}${site ? `; to lint a site's robots.txt, give its URL: https://${file}` : ''}`);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new UnreadableError(`${file} is a directory`);
    const buf = Buffer.alloc(MAX_READ_BYTES);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, filled, MAX_READ_BYTES - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === MAX_READ_BYTES) break;
    }
    // A regular file says its size; a device or pipe (/dev/zero) may go on for ever.
    const unread = filled < MAX_READ_BYTES ? 0 : stat.isFile() ? Math.max(0, stat.size - filled) : Infinity;
    return { bytes: buf.subarray(0, filled), unread };
  } finally {
    await handle.close();
  }
}

/**
 * The parser counts what it ignored of the bytes it was given; lint gave it at most MAX_READ_BYTES,
 * so the count must include what was never read, or a 5 MB file would be reported as 2 MB too long.
 */
function withUnread(d: Diagnostic, unread: number | undefined): Diagnostic {
  if (d.code !== 'truncated' || !unread) return d;
  const message = d.message.replace(/\((\d+) bytes past/, (_m, n: string) => (unread === Infinity ? `(more than ${n} bytes past` : `(${Number(n) + unread} bytes past`));
  return { ...d, message };
}

async function load(target: string, opts: LintOptions): Promise<Source> {
  if (!/^https?:\/\//i.test(target)) {
    const { bytes, unread } = await readLimited(target);
    return { name: target, bytes, unread, ...(opts.url ? { url: opts.url } : {}) };
  }
  const r = await fetchRobotsForTool(target, { resolve: opts.resolve, timeoutMs: Number(opts.timeout) });
  if (r.kind === 'unavailable') {
    throw new UnreadableError(`${r.robotsUrl}: ${r.status}: no robots.txt to lint (unavailable: RFC 9309 §2.3.1.3 allows every URL)`);
  }
  if (r.kind === 'unreachable') {
    throw new UnreadableError(`${r.robotsUrl}: ${r.status}${r.error ? `: ${r.error}` : ''} (unreachable: RFC 9309 §2.3.1.4 disallows every URL)`);
  }
  return { name: r.finalUrl, bytes: r.bytes!, url: r.finalUrl };
}

/** The file's lines as the parser decodes and numbers them (CR, LF and CRLF each end a line). */
function splitLines(bytes: Uint8Array): string[] {
  return decodeRobotsText(bytes).split(/\r\n|\r|\n/);
}

function colours(enabled: boolean) {
  const wrap = (code: string) => (s: string) => (enabled ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { bold: wrap('1'), dim: wrap('2'), error: wrap('1;31'), warning: wrap('1;33'), info: wrap('1;36') };
}

/**
 * `s` safe to write to a terminal: the file being linted may be hostile, and an escape sequence
 * (ESC, CSI, OSC...) copied from it could retitle the window, clear the screen or forge output.
 * Each C0 control but tab becomes its Control Picture (U+2400 + code), DEL becomes U+2421, C1
 * controls and bidirectional overrides become U+FFFD: one character for one, so carets still line up.
 */
export function printable(s: string): string {
  return s.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    const c = ch.charCodeAt(0);
    return c < 0x20 ? String.fromCharCode(0x2400 + c) : c === 0x7f ? '\u2421' : '\ufffd';
  });
}

/** `line` cut to its first `max` characters and `…` when longer: a minified or binary file has
 *  lines of many kilobytes that would flood the terminal. */
export function clipLine(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** `file:line:col: severity: message [code]`, the line, and a caret under the column. */
export function formatDiagnostic(name: string, d: Diagnostic, lines: readonly string[], colour: boolean): string {
  const c = colours(colour);
  const where = d.line > 0 ? `${printable(name)}:${d.line}:${d.column ?? 1}` : printable(name);
  let out = `${c.bold(`${where}:`)} ${c[d.severity](`${d.severity}:`)} ${printable(d.message)} ${c.dim(`[${d.code}]`)}`;
  const text = d.line > 0 ? lines[d.line - 1] : undefined;
  if (text !== undefined) {
    const shown = printable(clipLine(text, 200));
    const gutter = String(d.line).padStart(5);
    // Keep tabs under tabs so the caret lines up whatever the terminal's tab width.
    const pad = shown.slice(0, Math.max(0, (d.column ?? 1) - 1)).replace(/[^\t]/g, ' ');
    out += `\n${c.dim(`${gutter} |`)} ${shown}\n${c.dim(`${' '.repeat(5)} |`)} ${pad}${c[d.severity]('^')}`;
  }
  return out;
}

export function lintCommand(): Command {
  return new Command('lint')
    .description('check a robots.txt for mistakes: every diagnostic of the parser, with line and column')
    .argument('<file|url>', 'a robots.txt file, - for standard input, or an http(s) URL (its origin\'s /robots.txt is fetched)')
    .option('--json', 'one JSON object a line: {file, line, column, severity, code, message}')
    .option('--url <url>', 'for a FILE: the URL it is (or will be) served at, to resolve relative Sitemap lines')
    .addOption(new Option('--resolve <HOST:PORT:ADDR>', 'connect to ADDR for HOST:PORT (curl style); repeatable').argParser((v: string, prev: string[]) => [...prev, v]).default([]))
    .option('--timeout <ms>', 'robots.txt fetch timeout in ms', '10000')
    .addHelpText('after', `
Output: file:line:col: severity: message [code], the line, and a caret (stdout).
Exit codes: 0 clean (notes only), 1 warnings, 2 errors (or a usage error), 3 nothing to lint
(unreadable file, robots.txt unavailable or unreachable).`)
    .action(async (target: string, opts: LintOptions) => {
      // `lint FILE | head` closes the pipe early: stop quietly, as other command-line tools do.
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
        throw err;
      });
      const timeoutMs = Number(opts.timeout);
      if (!(timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS)) {
        // Not a fetch that timed out: `--timeout abc` would otherwise report the site unreachable.
        process.stderr.write(`robots-gate lint: --timeout must be a number of ms from 1 to ${MAX_TIMEOUT_MS}, got ${printable(opts.timeout)}\n`);
        process.exitCode = LINT_EXIT.errors;
        return;
      }
      let source: Source;
      try {
        source = await load(target, opts);
      } catch (err) {
        process.stderr.write(`robots-gate lint: ${printable((err as Error).message)}\n`);
        process.exitCode = LINT_EXIT.unreadable;
        return;
      }
      const options = source.url ? { url: source.url } : {};
      const diagnostics = allDiagnostics(parseRobotsTxt(source.bytes, options), source.bytes, options).map((d) => withUnread(d, source.unread));
      const colour = !opts.json && process.stdout.isTTY === true && !process.env.NO_COLOR;
      if (opts.json) {
        for (const d of diagnostics) {
          process.stdout.write(`${JSON.stringify({ file: source.name, line: d.line, column: d.column ?? 1, severity: d.severity, code: d.code, message: d.message })}\n`);
        }
      } else {
        const lines = splitLines(source.bytes);
        for (const d of diagnostics) process.stdout.write(`${formatDiagnostic(source.name, d, lines, colour)}\n`);
      }
      const count = (s: Diagnostic['severity']) => diagnostics.filter((d) => d.severity === s).length;
      const errors = count('error');
      const warnings = count('warning');
      process.stderr.write(`${printable(source.name)}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${plural(count('info'), 'note')}\n`);
      process.exitCode = errors ? LINT_EXIT.errors : warnings ? LINT_EXIT.warnings : LINT_EXIT.clean;
    });
}
