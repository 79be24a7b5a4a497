// `robots-gate serve [DIR]`: the robots.txt tester and the audit browser in a local web page.
import { Command, Option } from 'commander';
import { openAudit } from '../audit/reader.js';
import { startServer } from '../web/server.js';
import { MAX_TIMEOUT_MS } from '../fetcher/robots-fetcher.js';
import { parseResolveEntries } from '../fetcher/resolving-agent.js';

interface ServeCliOptions {
  port: string;
  host: string;
  resolve: string[];
  timeout: string;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('a local web page: a robots.txt tester, and an audit browser for a crawl\'s DIR')
    .argument('[dir]', 'a crawl\'s output DIR (its audit*.sqlite files) for the audit browser')
    .option('--port <n>', 'TCP port (0 picks a free one)', '8377')
    .option('--host <addr>', 'address to bind; the default keeps the page on this machine', '127.0.0.1')
    .addOption(new Option('--resolve <HOST:PORT:ADDR>', 'for the tester\'s fetches: connect to ADDR for HOST:PORT (curl style); repeatable').argParser((v: string, prev: string[]) => [...prev, v]).default([]))
    .option('--timeout <ms>', 'robots.txt fetch timeout in ms (the tester\'s "Fetch robots.txt")', '10000')
    .addHelpText('after', `
Prints the page's URL on stdout and serves until interrupted (Ctrl-C).
The server reads only DIR's audit files and its own built pages; robots.txt fetches follow RFC 9309
with the --timeout and a 2 MiB cap.
Exit codes: 0 stopped by a signal, 1 could not start (DIR has no audit, port taken, package not built).`)
    .action(async (dir: string | undefined, opts: ServeCliOptions) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`robots-gate serve: --port must be 0-65535, got ${opts.port}\n`);
        process.exitCode = 1;
        return;
      }
      const fetchTimeoutMs = Number(opts.timeout);
      if (!(fetchTimeoutMs >= 1 && fetchTimeoutMs <= MAX_TIMEOUT_MS)) {
        // Node fires a longer timer at once: every fetch of the tester would "time out".
        process.stderr.write(`robots-gate serve: --timeout must be a number of ms from 1 to ${MAX_TIMEOUT_MS}, got ${opts.timeout}\n`);
        process.exitCode = 1;
        return;
      }
      try {
        // Fail now, not on each "Fetch robots.txt" of the page, when a --resolve entry is malformed.
        parseResolveEntries(opts.resolve);
      } catch (err) {
        process.stderr.write(`robots-gate serve: ${(err as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      if (dir) {
        // Fail now, not on the first page load, when DIR holds no audit.
        try {
          openAudit(dir).close();
        } catch (err) {
          process.stderr.write(`robots-gate serve: ${(err as Error).message}\n`);
          process.exitCode = 1;
          return;
        }
      }
      let server;
      try {
        server = await startServer({ port, host: opts.host, resolve: opts.resolve, fetchTimeoutMs, ...(dir ? { auditDir: dir } : {}) });
      } catch (err) {
        process.stderr.write(`robots-gate serve: ${(err as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`${server.url}/\n`);
      process.stderr.write(`robots.txt tester: ${server.url}/\n${dir ? `audit browser:    ${server.url}/audit (${dir})\n` : ''}Ctrl-C to stop.\n`);
      const stop = () => void server.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
