// `robots-gate explain` says what robots.txt's usage lines say of a URL before anything is fetched,
// beside the access decision, for a fetched file and for --robots-file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

const FILE = '# legal terms\nUser-agent: *\nContent-Signal: search=yes, ai-train=no\n\nUser-agent: *\nDisallow: /admin\n';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
let dir: string;
let vh: VirtualHosts;
beforeAll(async () => {
  assertBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-usage-explain-'));
  vh = await startVirtualHosts({ 'cf.test': site(FILE) });
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await vh.close();
});

it('a fetched file: the usage line, its line number and the verdict per purpose; access unchanged', async () => {
  const r = await runCli(['explain', `${vh.origin('cf.test')}/page`, '--user-agent', GPTBOT, ...vh.resolve.flatMap((x) => ['--resolve', x])]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Usage (beside access, any reservation wins): search allowed by line 3 (content-signal "search=yes, ai-train=no"); ai-input unknown; ai-train reserved by line 3');
  const j = await runCli(['explain', `${vh.origin('cf.test')}/page`, '--user-agent', GPTBOT, '--json', ...vh.resolve.flatMap((x) => ['--resolve', x])]);
  const o = JSON.parse(j.stdout);
  expect(o.allowed).toBe(true);
  expect(o.usage.purposes['ai-train']).toMatchObject({ verdict: 'reserved', signals: [{ line: 3, kind: 'content-signal' }] });
  expect(o.usage.signals[0].url).toBe(`${vh.origin('cf.test')}/robots.txt`);
});

it('--robots-file: the same; a disallowed URL and a file without usage lines say nothing of usage', async () => {
  const file = path.join(dir, 'robots.txt');
  fs.writeFileSync(file, FILE);
  const r = await runCli(['explain', 'https://cf.example/page', '--robots-file', file, '--user-agent', 'GPTBot/1.1', '--json']);
  expect(JSON.parse(r.stdout).usage.purposes.search.verdict).toBe('allowed');
  const blocked = await runCli(['explain', 'https://cf.example/admin/x', '--robots-file', file, '--user-agent', 'GPTBot/1.1']);
  expect(blocked.code).toBe(1);
  expect(blocked.stdout).not.toContain('Usage');
  fs.writeFileSync(file, 'User-agent: *\nDisallow: /x\n');
  expect((await runCli(['explain', 'https://cf.example/page', '--robots-file', file, '--user-agent', 'GPTBot/1.1'])).stdout).not.toContain('Usage');
});

it("marks a group's usage lines as the group's, and not another group's", async () => {
  const file = path.join(dir, 'grouped.txt');
  fs.writeFileSync(file, 'User-agent: GPTBot\nDisallow: /private\nContent-Usage: train-ai=n\nContent-Signal: search=yes\n\nUser-agent: *\nContent-Usage: /page train-ai=y\nAllow: /\n');
  const r = await runCli(['explain', 'https://cf.example/page', '--robots-file', file, '--user-agent', 'GPTBot/1.1']);
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines.slice(0, 8)).toEqual([
    '| 1  User-agent: GPTBot',
    '| 2  Disallow: /private',
    '| 3  Content-Usage: train-ai=n',
    '| 4  Content-Signal: search=yes',
    '  5  ',
    '  6  User-agent: *',
    '  7  Content-Usage: /page train-ai=y',
    '  8  Allow: /',
  ]);
  expect(r.stdout).toMatch(/ai-train reserved by line 3 \(content-usage/);
});
