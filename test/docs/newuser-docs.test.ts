// What a new user needed and the docs did not say: how to map test host names for Puppeteer's
// Chromium, and where `report DIR` writes without --html.
import fs from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const README = fs.readFileSync('README.md', 'utf8');
const section = (title: string) => {
  const start = README.indexOf(title);
  return README.slice(start, README.indexOf('\n#', start + title.length));
};

beforeAll(() => assertBuilt());

it("README's Puppeteer section maps test host names in Chromium's launch args, with the helper that builds them", () => {
  const puppeteer = section('### Puppeteer: `robots-gate/puppeteer`');
  expect(puppeteer).toMatch(/--host-resolver-rules=\$\{hostResolverRules\(resolve\)\}/);
  expect(puppeteer).toMatch(/import \{[^}]*hostResolverRules[^}]*\} from 'robots-gate\/browser'/);
});

it('report --help and README say the HTML goes to standard output without --html', async () => {
  const help = await runCli(['report', '--help']);
  expect(help.stdout).toMatch(/Without --html, the HTML is written to standard output/);
  expect(README).toMatch(/Without `--html`, `robots-gate report DIR` writes that HTML to standard output/);
});
