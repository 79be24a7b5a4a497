// Debian's Chromium, started with its DevTools protocol on a pipe (`--remote-debugging-pipe`,
// NUL-terminated JSON on file descriptors 3 and 4) rather than on a port: a port would let any
// local process drive the browser past the gate, a pipe only this one. Clients reach the browser
// through the endpoint (proxy.ts), which requires its token.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { BrowserNotFoundError } from '../browser/errors.js';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM, hostResolverRules } from '../browser/launch.js';
import { BrowserExitedError, BrowserStartError } from './errors.js';

export interface ChromiumOptions {
  /** Default /usr/bin/chromium (Debian's `chromium` package). */
  executablePath?: string;
  /** curl-style `HOST:PORT:ADDR` entries: the browser connects there instead. */
  resolve?: readonly string[];
  /** Sent by every page (`navigator.userAgent` too); the gate sets it on each request anyway. */
  userAgent?: string;
  /** Extra flags, after the defaults. */
  args?: readonly string[];
}

export interface ChromiumEvents {
  /** One DevTools message from the browser (parsed JSON). */
  message: [message: Record<string, unknown>];
  /** The browser process is gone (crash, kill, or close()). */
  exit: [error: BrowserExitedError];
}

/** A running Chromium and its DevTools pipe. */
export class Chromium extends EventEmitter<ChromiumEvents> {
  private buffered: Buffer[] = [];
  exited: BrowserExitedError | null = null;
  private closing = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly userDataDir: string,
  ) {
    super();
    const out = child.stdio[4] as Readable;
    const into = child.stdio[3] as Writable;
    into.on('error', () => {}); // EPIPE after the browser died: 'exit' says so
    out.on('data', (chunk: Buffer) => this.onData(chunk));
    out.on('error', () => {});
    child.once('exit', (code, signal) => {
      this.exited = new BrowserExitedError(code, this.closing ? null : signal);
      void rm(this.userDataDir, { recursive: true, force: true }).catch(() => {});
      this.emit('exit', this.exited);
    });
  }

  /** The browser's process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Starts Chromium with the flags of src/browser/launch.ts, no window, and DevTools on a pipe.
   * @throws BrowserNotFoundError when nothing executable is at the path; BrowserStartError when
   *  the process cannot be spawned.
   */
  static async start(options: ChromiumOptions = {}): Promise<Chromium> {
    const executablePath = options.executablePath ?? DEFAULT_CHROMIUM;
    try {
      await access(executablePath, constants.X_OK);
    } catch {
      throw new BrowserNotFoundError(executablePath);
    }
    const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'robots-gate-browser-'));
    const args = [
      ...CHROMIUM_ARGS,
      '--remote-debugging-pipe',
      // No window yet: a page opened before the gate auto-attaches would load ungated.
      '--no-startup-window',
      `--user-data-dir=${userDataDir}`,
      '--no-default-browser-check',
      '--disable-extensions',
      '--mute-audio',
      '--password-store=basic',
      '--use-mock-keychain',
    ];
    if (options.userAgent) args.push(`--user-agent=${options.userAgent}`);
    if (options.resolve?.length) args.push(`--host-resolver-rules=${hostResolverRules(options.resolve)}`);
    args.push(...(options.args ?? []));
    const child = spawn(executablePath, args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    const spawned = await new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', resolve);
    });
    if (spawned) {
      await rm(userDataDir, { recursive: true, force: true }).catch(() => {});
      throw new BrowserStartError(executablePath, spawned.message);
    }
    return new Chromium(child, userDataDir);
  }

  private corked = false;

  /** Sends one message (serialised here). Dropped once the browser is gone. */
  send(message: object): void {
    if (this.exited) return;
    const into = this.child.stdio[3] as Writable;
    // The answers to a batch of paused requests are sent in one tick: one write to the pipe for
    // all of them, not one (and one wake-up of the browser's reader) each.
    if (!this.corked) {
      this.corked = true;
      into.cork();
      process.nextTick(() => {
        this.corked = false;
        into.uncork();
      });
    }
    into.write(JSON.stringify(message) + '\0');
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0, start); end !== -1; end = chunk.indexOf(0, start)) {
      // Most messages lie within one chunk: decoded in place, without a copy.
      let text: string;
      if (this.buffered.length === 0) text = chunk.toString('utf8', start, end);
      else {
        this.buffered.push(chunk.subarray(start, end));
        text = Buffer.concat(this.buffered).toString('utf8');
        this.buffered = [];
      }
      start = end + 1;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue; // not DevTools' JSON: nothing to route
      }
      this.emit('message', message);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  /** Ends the browser (SIGTERM, then SIGKILL after `graceMs` ms) and removes its profile. */
  async close(graceMs = 3_000): Promise<void> {
    if (this.exited) return;
    this.closing = true;
    const gone = new Promise<void>((resolve) => this.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}
