// `/json/protocol`: the DevTools protocol description Chromium serves on its own port, which
// clients that build their API from it read (chrome-remote-interface without `local`, some Go
// and Java clients). The gated browser speaks over a pipe, which carries no such document, so it
// is read once from a second Chromium of the same binary, started with no window and no page (it
// requests nothing) on a loopback port that lives until the document is read. The endpoint's own
// `Robots` domain (robots-domain.ts) is added to it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS } from '../browser/launch.js';
import { BrowserStartError } from './errors.js';

/** The Robots domain as the protocol describes domains (pdl's JSON form). */
const ROBOTS_DOMAIN = {
  domain: 'Robots',
  description: 'robots-gate: why the gate blocked a request (RFC 9309), answered by the endpoint, not the browser.',
  experimental: true,
  commands: [
    { name: 'enable', description: 'Sends Robots.requestBlocked on this session (a browser session: every target\'s).' },
    { name: 'disable', description: 'Stops Robots.requestBlocked on this session.' },
    {
      name: 'explain',
      description: 'The decision for a URL, without requesting it (its robots.txt may be fetched, once per origin).',
      parameters: [{ name: 'url', type: 'string' }],
      returns: [{ name: 'allowed', type: 'boolean' }, { name: 'reason', type: 'string' }, { name: 'rule', type: 'object', optional: true }, { name: 'robotsUrl', type: 'string' }, { name: 'sha256', type: 'string', optional: true }],
    },
  ],
  events: [
    {
      name: 'requestBlocked',
      description: 'A request failed with net::ERR_BLOCKED_BY_CLIENT; requestId and frameId are the Network domain\'s.',
      parameters: [
        { name: 'url', type: 'string' }, { name: 'reason', type: 'string' }, { name: 'rule', type: 'object', optional: true },
        { name: 'robotsUrl', type: 'string' }, { name: 'sha256', type: 'string', optional: true }, { name: 'requestId', type: 'string', optional: true },
        { name: 'frameId', type: 'string', optional: true }, { name: 'targetId', type: 'string' }, { name: 'type', type: 'string' },
        { name: 'isNavigation', type: 'boolean' }, { name: 'redirectedFrom', type: 'string', optional: true },
      ],
    },
  ],
};

/**
 * The protocol description of the Chromium at `executablePath` (its `/json/protocol`), with the
 * Robots domain added. Takes about half a second (a browser start).
 * @throws BrowserStartError when that Chromium does not start or serve it within `timeoutMs` ms.
 */
export async function readProtocol(executablePath: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'robots-gate-protocol-'));
  const child = spawn(executablePath, [...CHROMIUM_ARGS, '--remote-debugging-port=0', '--no-startup-window', `--user-data-dir=${dir}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no DevTools port within ${timeoutMs} ms`)), timeoutMs);
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('error', (e) => (clearTimeout(timer), reject(e)));
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`exited (code ${code}) before serving its protocol`))));
    });
    const res = await fetch(`http://127.0.0.1:${port}/json/protocol`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`its /json/protocol answered ${res.status}`);
    const protocol = (await res.json()) as { domains?: unknown[] };
    return { ...protocol, domains: [...(protocol.domains ?? []), ROBOTS_DOMAIN] };
  } catch (err) {
    throw new BrowserStartError(executablePath, `reading its protocol: ${(err as Error).message}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
