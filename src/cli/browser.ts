// `robots-gate browser --user-agent UA`: Debian's Chromium behind a DevTools endpoint on
// 127.0.0.1 that any DevTools client can drive, every request its pages make gated first.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { SqliteAuditSink } from '../audit/sqlite-sink.js';
import { BrowserNotFoundError } from '../browser/errors.js';
import { DEFAULT_CHROMIUM, hostResolverRules } from '../browser/launch.js';
import { DevToolsEndpoint } from '../devtools/endpoint.js';
import { BrowserStartError, EndpointListenError } from '../devtools/errors.js';
import { SessionAudit } from '../devtools/session-audit.js';
import { RobotsGate } from '../gate/index.js';
import { tolerateBrokenPipe } from './broken-pipe.js';
import { cliIdentity, PRODUCT_TOKEN_HELP } from './identity.js';
import { collect } from './repeatable.js';
import { printable } from './lint.js';
import { makeOutDir } from './out-dir.js';

/** Exit codes, as `--help` documents them. */
export const BROWSER_EXIT = { stopped: 0, browserExited: 1, usage: 2, audit: 3, listen: 4 } as const;

interface BrowserCliOptions {
  userAgent: string;
  productToken: string[];
  port: string;
  chromium?: string;
  resolve: string[];
  override: string[];
  out?: string;
  json?: boolean;
  quiet?: boolean;
}

const say = (s: string) => process.stderr.write(`robots-gate browser: ${s}\n`);

export function browserCommand(): Command {
  return new Command('browser')
    .description('serve a DevTools endpoint on 127.0.0.1 for a headless Chromium whose every request is put to robots.txt first')
    .requiredOption('--user-agent <ua>', 'the User-Agent the browser sends; rules match its product token')
    .option('--product-token <name>', PRODUCT_TOKEN_HELP, collect, [])
    .option('--port <n>', 'port on 127.0.0.1 (0: any free one)', '9222')
    .option('--chromium <path>', "the Chromium binary (default /usr/bin/chromium, Debian's chromium package)")
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention), robots.txt too; repeatable', collect, [])
    .option('--override <host>', 'let requests to this host through where robots.txt disallows (documented right only); repeatable', collect, [])
    .option('--out <dir>', 'write every decision as an audit row to DIR/audit.sqlite (read it with robots-gate audit / report)')
    .option('--json', 'print the endpoint as one JSON object (webSocketDebuggerUrl, httpUrl, token, port, pid)')
    .option('--quiet', 'do not log blocked requests on stderr')
    .addHelpText(
      'after',
      `
Prints the WebSocket URL (ws://127.0.0.1:PORT/TOKEN/devtools/browser/ID) on stdout: hand it to any
DevTools client. http://127.0.0.1:PORT/TOKEN/json/version, /json/list, /json/new are there too
(Playwright's connectOverCDP takes http://127.0.0.1:PORT/TOKEN). Without the token nothing answers.
Blocked requests fail with net::ERR_BLOCKED_BY_CLIENT; Robots.enable on a session sends
Robots.requestBlocked events (rule, line, robots.txt sha256), Robots.explain({url}) the decision.
Browser.close disconnects the client that sends it; the browser stays for the others.

Exit codes:
  0  stopped by SIGINT or SIGTERM
  1  the browser exited (crashed, killed) while starting or serving: every client was disconnected
  2  bad usage: a bad option value, no Chromium at --chromium (or a binary that does not answer as one)
  3  the audit in --out cannot be written
  4  the port cannot be bound (in use, not permitted)`,
    )
    .action(async (opts: BrowserCliOptions) => {
      tolerateBrokenPipe();
      process.exitCode = await runBrowser(opts);
      // The endpoint and the browser are closed; nothing left may hold the exit.
      process.exit(process.exitCode);
    });
}

async function runBrowser(opts: BrowserCliOptions): Promise<number> {
  const port = Number(opts.port);
  if (opts.port.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    say(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(opts.port)}`);
    return BROWSER_EXIT.usage;
  }
  const executablePath = opts.chromium ?? DEFAULT_CHROMIUM;
  try {
    fs.accessSync(executablePath, fs.constants.X_OK);
  } catch {
    say(new BrowserNotFoundError(executablePath).message);
    return BROWSER_EXIT.usage;
  }
  let gate: RobotsGate;
  try {
    if (opts.resolve.length) hostResolverRules(opts.resolve);
    // The identity first: its errors name --user-agent, the gate's name its own option.
    cliIdentity(opts.userAgent, opts.productToken);
    gate = new RobotsGate({
      userAgent: opts.userAgent,
      ...(opts.productToken.length ? { productToken: opts.productToken } : {}),
      resolve: opts.resolve,
      ...(opts.override.length ? { override: opts.override } : {}),
    });
  } catch (err) {
    say((err as Error).message);
    return BROWSER_EXIT.usage;
  }

  let audit: SessionAudit | null = null;
  if (opts.out) {
    try {
      makeOutDir(opts.out);
      const runId = `${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
      audit = new SessionAudit(new SqliteAuditSink(path.join(opts.out, 'audit.sqlite')), gate, runId, {
        command: 'browser',
        productToken: opts.productToken,
        resolve: opts.resolve,
        override: opts.override,
      });
    } catch (err) {
      say((err as Error).message);
      await gate.close();
      return BROWSER_EXIT.audit;
    }
  }

  let endpoint: DevToolsEndpoint;
  try {
    // With an audit, each allowed row carries its response's HTTP status.
    endpoint = await DevToolsEndpoint.start({ gate, port, executablePath, resolve: opts.resolve, responses: audit !== null });
  } catch (err) {
    say((err as Error).message);
    audit?.close('failed', (err as Error).message);
    await gate.close();
    if (err instanceof EndpointListenError) return BROWSER_EXIT.listen;
    return err instanceof BrowserStartError ? BROWSER_EXIT.usage : BROWSER_EXIT.browserExited;
  }

  let auditError: Error | null = null;
  const audited = (write: () => void): void => {
    if (!audit || auditError) return;
    try {
      write();
    } catch (err) {
      // The session goes on being gated; only the audit stops, and says so once.
      auditError = err as Error;
      say(`${auditError.message}: no further audit rows are written`);
    }
  };
  endpoint.on('response', (r) => audited(() => audit!.response(r)));
  endpoint.on('request', (e) => {
    if (!e.decision?.allowed && !opts.quiet) {
      const d = e.decision;
      const why = d?.rule ? `Disallow: ${d.rule.pattern} (line ${d.rule.line} of ${d.policy.robotsUrl})` : (d?.reason ?? `gate error: ${e.error?.message}`);
      say(printable(`blocked ${e.url}  ${why}`));
    }
    audited(() => audit!.record(e));
  });

  if (opts.json) {
    process.stdout.write(
      JSON.stringify({ webSocketDebuggerUrl: endpoint.webSocketDebuggerUrl, httpUrl: endpoint.httpUrl, token: endpoint.token, port: endpoint.port, pid: endpoint.pid ?? null }) + '\n',
    );
  } else process.stdout.write(`${endpoint.webSocketDebuggerUrl}\n`);
  say(`DevTools endpoint ${endpoint.httpUrl}/json/version (Chromium pid ${endpoint.pid}); stop with Ctrl-C`);

  const code = await new Promise<number>((resolve) => {
    endpoint.once('exit', (err) => {
      say(err.message);
      resolve(BROWSER_EXIT.browserExited);
    });
    const stop = () => void endpoint.close().then(() => resolve(BROWSER_EXIT.stopped));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  try {
    audit?.close(code === BROWSER_EXIT.stopped ? 'completed' : 'failed', code === BROWSER_EXIT.stopped ? null : 'the browser exited');
  } catch (err) {
    say((err as Error).message);
  }
  await gate.close();
  return auditError ? BROWSER_EXIT.audit : code;
}
