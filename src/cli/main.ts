#!/usr/bin/env node
// The `robots-gate` command. Each command lives in its own file and exports a factory; adding one
// is one import and one addCommand line.
import { Command, type CommanderError } from 'commander';
import { auditCommand } from './audit.js';
import { browserCommand } from './browser.js';
import { tolerateBrokenPipe } from './broken-pipe.js';
import { checkCommand } from './check.js';
import { crawlCommand } from './crawl.js';
import { explainCommand } from './explain.js';
import { lintCommand } from './lint.js';
import { reportCommand } from './report.js';
import { serveCommand } from './serve.js';
import { sitemapsCommand } from './sitemaps.js';
import { unitsSaid, unknownOptionsFirst, withInitialsHint } from './usage-errors.js';

const program = new Command('robots-gate')
  .description('RFC 9309 robots.txt for crawlers: check, explain, crawl politely, and audit every fetch')
  .version('0.1.0');

program.addCommand(checkCommand());
program.addCommand(explainCommand());
program.addCommand(crawlCommand());
program.addCommand(auditCommand());
program.addCommand(lintCommand());
program.addCommand(serveCommand());
program.addCommand(reportCommand());
program.addCommand(sitemapsCommand());
program.addCommand(browserCommand());

// Usage errors (unknown option, missing argument) exit 2 in every command, as their --help says.
const onExit = (err: CommanderError) => {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
  process.exit(2);
};
for (const c of [program, ...program.commands]) {
  // A pointer to --help, not the whole help: the error line is what must be read.
  c.exitOverride(onExit)
    .showHelpAfterError(`(robots-gate ${c === program ? '' : `${c.name()} `}--help for usage)`)
    .showSuggestionAfterError()
    .configureOutput({ outputError: (text, write) => write(withInitialsHint(text, c)) });
  if (c !== program) {
    unknownOptionsFirst(c);
    unitsSaid(c);
  }
}

// Every command may be piped into a reader that stops early (`| head`): drop output then, never crash.
tolerateBrokenPipe();
await program.parseAsync(process.argv);
