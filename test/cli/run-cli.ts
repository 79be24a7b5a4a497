// Run the built CLI (`node dist/cli/main.js`) as a subprocess, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CLI = path.resolve('dist/cli/main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.build.json\` first`);
}

/** Run `robots-gate ARGS`; killed (SIGKILL) after `timeoutMs`. `onStart` gets the child. */
export function runCli(
  args: string[],
  options: { timeoutMs?: number; stdin?: string; onStart?: (child: ChildProcess) => void; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 25_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    else child.stdin.end();
    options.onStart?.(child);
  });
}

/** An `onStart` that sends `signal` (default SIGINT, Ctrl-C) once `when()` holds, polled every 5 ms. */
export function interruptWhen(when: () => boolean, signal: NodeJS.Signals = 'SIGINT'): (child: ChildProcess) => void {
  return (child) => {
    const poll = setInterval(() => {
      if (!when()) return;
      clearInterval(poll);
      child.kill(signal);
    }, 5);
    child.once('close', () => clearInterval(poll));
  };
}
