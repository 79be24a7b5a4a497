// `robots-gate browser` as a subprocess: it prints the endpoint, gates what a client browses,
// writes the session's audit for `robots-gate audit`, and survives its browser dying.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { assertBuilt, CLI, runCli } from '../cli/run-cli.js';
import { CDN, startSite, UA, WWW, type Site } from './site.js';
import { connect, openPage, sleep } from './harness.js';

let site: Site;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  site = await startSite();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-devtools-cli-'));
});
afterAll(async () => {
  await site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcessWithoutNullStreams;
  endpoint: { webSocketDebuggerUrl: string; httpUrl: string; token: string; port: number; pid: number };
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function start(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [CLI, 'browser', '--user-agent', UA, '--port', '0', '--json', ...site.hosts.resolve.flatMap((r) => ['--resolve', r]), ...args], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    void exited.then(() => reject(new Error(`exited before printing the endpoint: ${stderr}`)));
    setTimeout(() => reject(new Error('no endpoint line within 20 s')), 20_000);
  });
  return { child, endpoint: JSON.parse(line), stderr: () => stderr, exited };
}

test('serves a gated browser, logs what it blocked, writes an audit that `robots-gate audit` reads; SIGINT stops it with 0', async () => {
  const out = path.join(dir, 'session');
  const r = await start(['--out', out]);
  try {
    expect(r.endpoint.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${r.endpoint.port}/${r.endpoint.token}/devtools/browser/`));
    expect((await fetch(`http://127.0.0.1:${r.endpoint.port}/json/version`)).status).toBe(403);
    const c = await connect(r.endpoint.webSocketDebuggerUrl);
    const { sessionId } = await openPage(c);
    await c.send('Page.navigate', { url: site.url(WWW, '/') }, sessionId);
    await c.waitFor('Page.loadEventFired');
    await c.waitFor('Robots.requestBlocked', (p) => p.url.endsWith('/private/data.json'));
    await c.send('Page.navigate', { url: site.url(WWW, '/admin') }, sessionId);
    // An allowed redirect into a disallowed path: the hop's row has the 302, the next is blocked.
    await c.send('Page.navigate', { url: site.url(WWW, '/go-private') }, sessionId);
    await c.waitFor('Robots.requestBlocked', (p) => p.url.endsWith('/private/landing.html'));
    await c.close();
    await sleep(200);
  } finally {
    r.child.kill('SIGINT');
  }
  expect((await r.exited).code).toBe(0);
  expect(r.stderr()).toMatch(/blocked http:\/\/cdn\.shop\.test:\d+\/private\/track\.js {2}Disallow: \/private\/ \(line 3 of/);
  expect(site.paths(CDN).filter((p) => p.startsWith('/private/'))).toEqual([]);

  const audit = openAudit(out);
  try {
    const rows = audit.attempts({});
    const blocked = rows.filter((a) => a.outcome === 'blocked');
    expect(blocked.map((a) => [new URL(a.url).pathname, a.kind, a.ruleLine]).sort()).toEqual([
      ['/admin', 'navigation', 2],
      ['/private/data.json', 'subresource', 3],
      ['/private/landing.html', 'navigation', 3],
      ['/private/pixel.png', 'subresource', 3],
      ['/private/track.js', 'subresource', 3],
    ]);
    const page = rows.find((a) => a.url === site.url(WWW, '/'))!;
    expect(page).toMatchObject({ kind: 'navigation', outcome: 'fetched', status: 200, robotsUrl: site.url(WWW, '/robots.txt') });
    // Allowed rows carry the status of their response; blocked ones have none.
    expect(rows.find((a) => a.url === site.url(CDN, '/public/app.js'))).toMatchObject({ outcome: 'fetched', status: 200, kind: 'subresource' });
    expect(rows.find((a) => a.url === site.url(CDN, '/public/logo.png'))).toMatchObject({ outcome: 'fetched', status: 200 });
    expect(rows.find((a) => a.url === site.url(WWW, '/go-private'))).toMatchObject({ outcome: 'fetched', status: 302, kind: 'navigation' });
    expect(blocked.every((a) => a.status === null)).toBe(true);
    expect(rows.filter((a) => a.url === site.url(WWW, '/'))).toHaveLength(1);
    expect(blocked.every((a) => a.policySha256 && a.robotsUrl)).toBe(true);
    expect(rows.find((a) => a.url.endsWith('/private/track.js'))!.parentUrl).toBe(site.url(WWW, '/'));
  } finally {
    audit.close();
  }
  const verify = await runCli(['audit', out, '--verify']);
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  const timeline = await runCli(['audit', out, '--host', new URL(site.url(CDN, '/')).host]);
  expect(timeline.stdout).toMatch(/fetched {4}200 {2}http:\/\/cdn\.shop\.test:\d+\/public\/app\.js/);
  const listed = await runCli(['audit', out, '--blocked', '--json']);
  expect(listed.stdout).toMatch(/private\/track\.js/);
  const report = await runCli(['report', out]);
  expect(report.code, report.stderr).toBe(0);
  expect(report.stdout).toMatch(/cdn\.shop\.test/);
  expect(report.stdout).toMatch(/private\/track\.js/);
}, 60_000);

test('the browser dying ends the CLI with exit 1 and a clear message, not a crash', async () => {
  const r = await start([]);
  const c = await connect(r.endpoint.webSocketDebuggerUrl);
  expect((await c.send('Browser.getVersion')).product).toMatch(/Chrome/);
  process.kill(r.endpoint.pid, 'SIGKILL');
  const { code } = await r.exited;
  expect(code).toBe(1);
  expect(r.stderr()).toMatch(/Chromium exited \(signal SIGKILL\): the DevTools endpoint is closed/);
  expect(r.stderr()).not.toMatch(/at .*\.js:\d+/); // no stack trace
  await expect(c.send('Browser.getVersion')).rejects.toThrow();
}, 60_000);

test('bad usage exits 2: no Chromium, a bad port, a bad --resolve; a taken port exits 4', async () => {
  const noChromium = await runCli(['browser', '--user-agent', UA, '--chromium', path.join(dir, 'none')]);
  expect(noChromium.code).toBe(2);
  expect(noChromium.stderr).toMatch(/no Chromium at .*none: install Debian's chromium package/);
  const badPort = await runCli(['browser', '--user-agent', UA, '--port', '70000']);
  expect(badPort.code).toBe(2);
  expect(badPort.stderr).toMatch(/--port must be a whole number from 0 to 65535, got "70000"/);
  const badResolve = await runCli(['browser', '--user-agent', UA, '--resolve', 'nonsense']);
  expect(badResolve.code).toBe(2);
  expect(badResolve.stderr).toMatch(/HOST:PORT:ADDR/);
  const badToken = await runCli(['browser', '--user-agent', UA, '--product-token', 'OtherBot']);
  expect(badToken.code).toBe(2);
  expect(badToken.stderr).toMatch(/OtherBot/);
  const taken = await runCli(['browser', '--user-agent', UA, '--port', String(site.hosts.port)]);
  expect(taken.code).toBe(4);
  expect(taken.stderr).toMatch(/cannot listen on 127\.0\.0\.1:\d+/);
}, 60_000);
