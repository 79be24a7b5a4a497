// `robots-gate report DIR [--html FILE]`: one self-contained HTML file describing a crawl.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { buildReportHtml } from '../report/html.js';
import { loadCrawlRecord } from '../report/load.js';

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
    .addHelpText('after', '\nExit codes: 0 written, 1 DIR has no readable audit or FILE cannot be written.')
    .action(async (dir: string, opts: ReportCliOptions) => {
      try {
        const html = buildReportHtml(loadCrawlRecord(dir), { title: opts.title ?? path.resolve(dir) });
        if (opts.html) {
          await writeFile(opts.html, html);
          process.stderr.write(`wrote ${opts.html} (${Buffer.byteLength(html)} bytes)\n`);
        } else {
          process.stdout.write(html);
        }
      } catch (err) {
        process.stderr.write(`robots-gate report: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
