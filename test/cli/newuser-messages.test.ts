// The error messages a new user meets first, each in the CLI's own words: a misspelt option, an
// empty --user-agent, a host without a scheme, a unit where ms are expected, a binary file to lint.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-messages-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('usage errors', () => {
  it('a misspelt --user-agent is an unknown option with a suggestion, not a missing required one', async () => {
    for (const flag of ['--ua', '--useragent']) {
      const r = await runCli(['check', 'https://a.test/', flag, 'MyBot/1.0']);
      expect(r.code, flag).toBe(2);
      expect(r.stderr, flag).toContain(`error: unknown option '${flag}'\n(Did you mean --user-agent?)`);
      expect(r.stderr, flag).not.toMatch(/required option/);
    }
    const crawl = await runCli(['crawl', 'list.txt', '--out', path.join(dir, 'o'), '--ua', 'MyBot/1.0']);
    expect(crawl.stderr).toMatch(/unknown option '--ua'\n\(Did you mean --user-agent\?\)/);
    expect(fs.existsSync(path.join(dir, 'o'))).toBe(false);
    // A real omission is still said, with a pointer to --help rather than the whole help.
    const missing = await runCli(['check', 'https://a.test/']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("error: required option '--user-agent <ua>' not specified\n(robots-gate check --help for usage)\n");
  });

  it('an empty --user-agent is said with the flag, not the library option', async () => {
    for (const cmd of [['check', 'https://a.test/'], ['explain', 'https://a.test/']]) {
      const r = await runCli([...cmd, '--user-agent', ' ']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--user-agent is empty: give the User-Agent header your crawler sends/);
      expect(r.stderr).not.toMatch(/RobotsGate|options\.userAgent/);
    }
    const crawl = await runCli(['crawl', '-', '--user-agent', '', '--out', path.join(dir, 'o')], { stdin: 'https://a.test/\n' });
    expect(crawl.stderr).toMatch(/--user-agent is empty/);
    const bad = await runCli(['check', 'https://a.test/', '--user-agent', '@@']);
    expect(bad.stderr).toMatch(/--user-agent "@@" starts with "@@", which is not a product token/);
    // A browser-style string's token comes after compatible;, and the message says so.
    const moz = await runCli(['check', 'http://a.test/', '--user-agent', 'Mozilla/5.0 (compatible; Bötbot/1.0)', '--robots-file', '/dev/null']);
    expect(moz.code).toBe(2);
    expect(moz.stderr).toMatch(/names "Bötbot" after "compatible;", which is not a product token/);
  });

  it('a path alone (gate.check("/page")) is told to be given as an absolute URL', async () => {
    const { RobotsGate } = await import('../../src/gate/gate.js');
    const gate = new RobotsGate({ userAgent: 'MyBot/1.0' });
    try {
      await expect(gate.check('/relative')).rejects.toThrow('invalid URL: "/relative" (a path alone: give the absolute URL, as in "https://example.com/page")');
    } finally {
      await gate.close();
    }
    const r = await runCli(['check', '/relative', '--user-agent', 'MyBot/1.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(a path alone: give the absolute URL');
  });

  it('a missing audit directory or --html folder is said in words, not as ENOENT', async () => {
    const audit = await runCli(['audit', path.join(dir, 'no-such-crawl')]);
    expect(audit.code).toBe(3);
    expect(audit.stderr).toContain('no-such-crawl: there is no such directory');
    const out = path.join(dir, 'empty-crawl');
    fs.mkdirSync(out);
    const { SqliteAuditSink } = await import('../../src/audit/sqlite-sink.js');
    new SqliteAuditSink(path.join(out, 'audit.sqlite')).close();
    const report = await runCli(['report', out, '--html', path.join(dir, 'no-such-folder', 'r.html')]);
    expect(report.code).toBe(1);
    expect(report.stderr).toMatch(/cannot write --html \S+r\.html: there is no such file or directory/);
    expect(report.stderr).not.toMatch(/ENOENT/);
  });

  it('a host without a scheme gets the advice to add https://', async () => {
    const r = await runCli(['check', 'www.amazon.de/gp/cart', '--user-agent', 'MyBot/1.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(no scheme: add https://, as in "https://www.amazon.de/gp/cart")');
    const crawl = await runCli(['crawl', '-', '--user-agent', 'MyBot/1.0', '--out', path.join(dir, 'o')], { stdin: 'www.amazon.de/gp/cart\n' });
    expect(crawl.stderr).toMatch(/line 1: not a URL: www\.amazon\.de\/gp\/cart \(no scheme: add https:\/\//);
    const lint = await runCli(['lint', 'www.amazon.de']);
    expect(lint.stderr).toMatch(/to lint a site's robots\.txt, give its URL: https:\/\/www\.amazon\.de/);
    // Not for what is no host name.
    const scheme = await runCli(['check', 'mailto:a@b.test', '--user-agent', 'MyBot/1.0']);
    expect(scheme.stderr).not.toMatch(/no scheme/);
  });

  it('--min-interval 2s says the unit is ms and what to give', async () => {
    const r = await runCli(['crawl', '-', '--user-agent', 'MyBot/1.0', '--out', path.join(dir, 'o'), '--min-interval', '2s'], { stdin: 'https://a.test/\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--min-interval <ms>' argument '2s' is invalid\. The unit is ms: give 2000 for 2s\./);
    const s = await runCli(['crawl', '-', '--user-agent', 'MyBot/1.0', '--out', path.join(dir, 'o'), '--max-crawl-delay', '1min'], { stdin: 'https://a.test/\n' });
    expect(s.stderr).toMatch(/The unit is s: give 60 for 1min\./);
  });
});

describe('lint on a file that is not text', () => {
  it('says the file is not text, once, instead of quoting its bytes as directives', async () => {
    const bin = path.join(dir, 'robots.txt');
    // A program's start: ELF header, runs of NUL, and one 23 KB "line" with no line break.
    const bytes = Buffer.alloc(24_000);
    Buffer.from('\x7fELF\x02\x01\x01').copy(bytes);
    for (let i = 64; i < bytes.length; i++) bytes[i] = i % 7 === 0 ? 0 : 0x41 + (i % 26);
    fs.writeFileSync(bin, bytes);
    const r = await runCli(['lint', bin]);
    expect(r.code).toBe(2);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/robots\.txt: error: The file is not text: .* \[not-text\]$/)]);
    expect(r.stdout.length).toBeLessThan(400);
    const json = await runCli(['lint', bin, '--json']);
    expect(json.stdout.trim().split('\n').map((l) => JSON.parse(l).code)).toEqual(['not-text']);
  });

  it('a text file with one NUL in a line is linted as text', async () => {
    const file = path.join(dir, 'nul.txt');
    fs.writeFileSync(file, 'User-agent: *\nDisallow: /private\0junk\n');
    const r = await runCli(['lint', file, '--json']);
    expect(r.stdout).not.toMatch(/not-text/);
    expect(r.stdout).toMatch(/nul-byte/);
  });
});

describe('audit --host', () => {
  it('exits non-zero when the host has no rows', async () => {
    const empty = path.join(dir, 'audit');
    fs.mkdirSync(empty);
    const crawl = await runCli(['crawl', '-', '--user-agent', 'MyBot/1.0', '--out', empty, '--resolve', 'a.test:1:127.0.0.1', '--robots-timeout', '500'], {
      stdin: 'http://a.test:1/\n',
    });
    expect(crawl.code).toBe(1);
    const r = await runCli(['audit', empty, '--host', 'b.test']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/no rows for host "b\.test"/);
    const help = await runCli(['audit', '--help']);
    expect(help.stdout).toMatch(/^ {2}4 {2}--host names a host the audit has no row for/m);
  });
});
