// `robots-gate lint` through the built CLI: one test per diagnostic the parser reports, the
// compiler-style and JSON outputs, the exit codes, and linting a URL served on loopback.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from './cli.js';

let tmp: string;
let hosts: VirtualHosts;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'rg-lint-'));
  hosts = await startVirtualHosts({
    'site.test': (req, res) => {
      if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /x\nSitemap: /sitemap.xml\n');
      else res.writeHead(404).end();
    },
    'html.test': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html>\n<html><head><title>Home</title></head><body>Welcome</body></html>\n'),
    'none.test': (_req, res) => void res.writeHead(404).end('not found'),
    'down.test': (_req, res) => void res.writeHead(503).end(),
  });
});

afterAll(async () => {
  await hosts?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function file(name: string, content: string | Buffer): string {
  const p = path.join(tmp, name);
  writeFileSync(p, content);
  return p;
}

interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  severity: string;
  code: string;
  message: string;
}

async function lintJson(target: string, extra: string[] = []): Promise<{ code: number | null; diagnostics: JsonDiagnostic[]; stderr: string }> {
  const r = await runCli(['lint', target, '--json', ...extra]);
  const diagnostics = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as JsonDiagnostic);
  return { code: r.code, diagnostics, stderr: r.stderr };
}

// [code, file content, expected line, expected column, exit code]
const CASES: [string, string | Buffer, number, number, number][] = [
  ['bom', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('User-agent: *\nDisallow: /\n')]), 0, 1, 0],
  ['non-utf8', Buffer.concat([Buffer.from('User-agent: *\nDisallow: /caf'), Buffer.from([0xe9]), Buffer.from('\n')]), 0, 1, 1],
  ['html-body', '<!DOCTYPE html>\n<html><body>Not found</body></html>\n', 0, 1, 2],
  ['truncated', 'User-agent: *\n' + Array.from({ length: 60_000 }, (_, i) => `Disallow: /p${i}\n`).join(''), 0, 1, 1],
  ['unknown-directive', 'User-agent: *\nDisallow: /x\nFoo: bar\n', 3, 1, 0],
  ['misspelled-directive', 'User-agent: *\nDisalow: /x\n', 2, 1, 1],
  ['missing-colon', 'User-agent: *\nDisallow /x\n', 2, 9, 1],
  ['invalid-line', 'User-agent: *\njust some words\n', 2, 1, 1],
  ['rule-outside-group', 'Disallow: /x\nUser-agent: *\n', 1, 1, 2],
  ['invalid-product-token', 'User-agent: Foo Bot/1.0\nDisallow: /x\n', 1, 13, 0],
  ['pattern-not-path', 'User-agent: *\nDisallow: private\n', 2, 11, 1],
  ['invalid-crawl-delay', 'User-agent: *\nCrawl-delay: soon\n', 2, 14, 2],
  ['relative-sitemap', 'User-agent: *\nDisallow: /x\nSitemap: /sitemap.xml\n', 3, 10, 2],
  ['conflicting-rules', 'User-agent: *\nAllow: /same\nDisallow: /same\n', 3, 1, 1],
  ['duplicate-rule', 'User-agent: *\nDisallow: /a\nDisallow: /a\n', 3, 1, 0],
  ['shadowed-rule', 'User-agent: *\nAllow: /shop$\nDisallow: /shop*****\n', 2, 1, 1],
];

describe.concurrent('lint: one test per diagnostic', () => {
  for (const [code, content, line, column, exit] of CASES) {
    it(`${code}: line ${line}, column ${column}, exit ${exit}`, async () => {
      const f = file(`${code}.txt`, content);
      const r = await lintJson(f);
      const found = r.diagnostics.filter((d) => d.code === code);
      expect(found, JSON.stringify(r.diagnostics)).toHaveLength(1);
      expect(found[0]).toMatchObject({ file: f, line, column, code });
      expect(found[0]!.message.length).toBeGreaterThan(10);
      expect(r.code).toBe(exit);
    });
  }

  it('invalid-crawl-delay with text after the number is a warning, and the number is used', async () => {
    const r = await lintJson(file('delay-text.txt', 'User-agent: *\nCrawl-delay: 5 seconds\n'));
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'invalid-crawl-delay', severity: 'warning', line: 2, column: 14 })]);
    expect(r.code).toBe(1);
  });

  it('missing-colon quotes the line as it was read, with its value, for every directive', async () => {
    const r = await lintJson(
      file(
        'no-colon.txt',
        'User-agent *\nAllow /b # the comment is not part of the value\nDisallow /a\nCrawl-delay 5\nSitemap /s.xml\nDissallow /c\n',
      ),
      ['--url', 'https://example.com/robots.txt'],
    );
    // A URL with its scheme has a colon of its own, so the Sitemap line here is a relative path.
    expect(r.diagnostics.filter((d) => d.code !== 'relative-sitemap').map((d) => [d.line, d.code, d.message])).toEqual([
      [1, 'missing-colon', '"User-agent" is not followed by a colon; the line was read as "User-agent: *".'],
      [2, 'missing-colon', '"Allow" is not followed by a colon; the line was read as "Allow: /b".'],
      [3, 'missing-colon', '"Disallow" is not followed by a colon; the line was read as "Disallow: /a".'],
      [4, 'missing-colon', '"Crawl-delay" is not followed by a colon; the line was read as "Crawl-delay: 5".'],
      [5, 'missing-colon', '"Sitemap" is not followed by a colon; the line was read as "Sitemap: /s.xml".'],
      [6, 'misspelled-directive', '"Dissallow" is a misspelling; it was accepted as "disallow".'],
      [6, 'missing-colon', '"Dissallow" is not followed by a colon; the line was read as "Dissallow: /c".'],
    ]);
  });

  it('a key alone, with no colon and no value, is an invalid line, not a missing colon', async () => {
    const r = await lintJson(file('no-colon-empty.txt', 'User-agent: *\nAllow\nDisallow   # nothing\n'));
    expect(r.diagnostics.map((d) => [d.line, d.code])).toEqual([
      [2, 'invalid-line'],
      [3, 'invalid-line'],
    ]);
  });

  it('a clean file prints nothing and exits 0', async () => {
    const r = await runCli(['lint', file('clean.txt', 'User-agent: *\nDisallow: /private/\nAllow: /private/press/\n\nSitemap: https://example.com/sitemap.xml\n')]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('0 errors, 0 warnings, 0 notes');
    expect(r.code).toBe(0);
  });
});

describe('lint: output and exit codes', () => {
  it('prints file:line:col severity message [code], the line, and a caret under the column', async () => {
    const f = file('human.txt', 'User-agent: *\nDisallow: private\nDisalow: /x\n');
    const r = await runCli(['lint', f]);
    expect(r.stdout).toBe(
      `${f}:2:11: warning: The pattern "private" starts with neither "/" nor "*", so it matches no URL path (RFC 9309 §2.2.2). [pattern-not-path]\n` +
        '    2 | Disallow: private\n' +
        '      |           ^\n' +
        `${f}:3:1: warning: "Disalow" is a misspelling; it was accepted as "disallow". [misspelled-directive]\n` +
        '    3 | Disalow: /x\n' +
        '      | ^\n',
    );
    expect(r.stderr).toBe(`${f}: 0 errors, 2 warnings, 0 notes\n`);
    expect(r.code).toBe(1);
  });

  it('errors outrank warnings: exit 2 when both are present', async () => {
    const r = await lintJson(file('both.txt', 'Disallow: /early\nUser-agent: *\nDisalow: /x\n'));
    expect(r.diagnostics.map((d) => d.severity).sort()).toEqual(['error', 'warning']);
    expect(r.code).toBe(2);
  });

  it('writes no colour codes when stdout is not a terminal', async () => {
    const r = await runCli(['lint', file('plain.txt', 'User-agent: *\nDisalow: /x\n')], { env: { FORCE_COLOR: '1' } });
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('--url says where a FILE is served: a relative Sitemap is then resolved (info), not dropped (error)', async () => {
    const f = file('sitemap-url.txt', 'User-agent: *\nDisallow: /x\nSitemap: /sitemap.xml\n');
    const r = await lintJson(f, ['--url', 'https://example.com/robots.txt']);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'relative-sitemap', severity: 'info', line: 3 })]);
    expect(r.diagnostics[0]!.message).toContain('resolved');
    expect(r.code).toBe(0);
  });

  it('reads standard input with -', async () => {
    const r = await runCli(['lint', '-', '--json'], { input: 'User-agent: *\nDisalow: /x\n' });
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ file: '-', line: 2, code: 'misspelled-directive' });
    expect(r.code).toBe(1);
  });

  it('exits 3 with a message when there is nothing to lint', async () => {
    const missing = await runCli(['lint', path.join(tmp, 'no-such-file.txt')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('there is no such file or directory');
    const dirArg = await runCli(['lint', tmp]);
    expect(dirArg.code).toBe(3);
    expect(dirArg.stderr).toContain('is a directory');
  });
});

describe('lint URL', () => {
  const resolve = () => hosts.resolve.flatMap((r) => ['--resolve', r]);

  it('fetches the origin\'s /robots.txt; a relative Sitemap is resolved against it (info, not error)', async () => {
    const r = await lintJson(`${hosts.origin('site.test')}/some/page`, resolve());
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ file: `${hosts.origin('site.test')}/robots.txt`, code: 'relative-sitemap', severity: 'info', line: 3 }),
    ]);
    expect(r.code).toBe(0);
  });

  it('an HTML page served as robots.txt is an error', async () => {
    const r = await lintJson(hosts.origin('html.test'), resolve());
    expect(r.diagnostics.map((d) => d.code)).toContain('html-body');
    expect(r.code).toBe(2);
  });

  it('404 and 503: nothing to lint, exit 3, and what RFC 9309 makes of it', async () => {
    const none = await lintJson(hosts.origin('none.test'), resolve());
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('404');
    expect(none.stderr).toContain('unavailable');
    const down = await lintJson(hosts.origin('down.test'), resolve());
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('503');
    expect(down.stderr).toContain('unreachable');
  });
});
