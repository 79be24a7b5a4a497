// Runs the built CLI (dist/cli/main.js) as a subprocess, as a person would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const MAIN = path.resolve('dist/cli/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `robots-gate ...args` to completion (killed after timeoutMs). */
export function runCli(args: readonly string[], options: { input?: string | Buffer; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  stop(): Promise<void>;
}

/** Start `robots-gate serve --port 0 ...args` and wait for the URL it prints. */
export function startServe(args: readonly string[]): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no URL within 15 s: ${err}`));
    }, 15_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^(http:\/\/\S+?)\/?$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        child,
        url: m[1]!,
        stop: () =>
          new Promise<void>((done) => {
            // Killed by a signal, a child has signalCode set and exitCode null: stopped already.
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('close', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${err}`));
    });
  });
}
