// `robots-gate report DIR [--html FILE]`: one self-contained HTML file describing a crawl.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { buildReportHtml } from '../report/html.js';
import { fsProblem } from './fs-words.js';
import type { CrawlRecord } from '../report/crawl-record.js';
import { loadCrawlRecord } from '../report/load.js';

/** Exit codes; 3 is `audit`'s code for the same DIR, so scripts read both commands alike. */
export const REPORT_EXIT = { ok: 0, notWritten: 1, unreadable: 3 } as const;

interface ReportCliOptions {
  html?: string;
  title?: string;
}

export function reportCommand(): Command {
  return new Command('report')
    .description('a self-contained HTML report of a crawl: totals, hosts, per-host timelines, policy changes')
    .argument('<dir>', 'the crawl\'s output DIR (every audit*.sqlite in it is read as one)')
    .option('--html <file>', 'write the report to FILE (default: standard output)')
    .option('--title <text>', 'what the report is about (default: DIR)')
    .addHelpText(
      'after',
      `
Without --html, the HTML is written to standard output (the terminal, unless redirected):
  robots-gate report DIR --html report.html     or     robots-gate report DIR > report.html

Exit codes:
  0  written
  1  FILE cannot be written
  3  nothing to read: DIR holds no readable audit (as \`robots-gate audit\`)`,
    )
    .action(async (dir: string, opts: ReportCliOptions) => {
      let record: CrawlRecord;
      try {
        record = loadCrawlRecord(dir);
      } catch (err) {
        process.stderr.write(`robots-gate report: nothing to read: ${(err as Error).message}\n`);
        process.exitCode = REPORT_EXIT.unreadable;
        return;
      }
      for (const note of record.notes ?? []) process.stderr.write(`robots-gate report: note: ${note}\n`);
      try {
        const html = buildReportHtml(record, { title: opts.title ?? path.resolve(dir) });
        if (opts.html) {
          try {
            await writeFile(opts.html, html);
          } catch (err) {
            throw new Error(`cannot write --html ${opts.html}: ${fsProblem(err)}`);
          }
          process.stderr.write(`wrote ${opts.html} (${Buffer.byteLength(html)} bytes)\n`);
        } else {
          process.stdout.write(html);
        }
      } catch (err) {
        process.stderr.write(`robots-gate report: ${(err as Error).message}\n`);
        process.exitCode = REPORT_EXIT.notWritten;
      }
    });
}
