// A new user's --run: without --redis it was silently ignored; a finished fleet run name reused
// said "0 URLs settled" and nothing else.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { deleteKeys } from '../stores/redis-test-keys.js';

const UA = 'TestBot/1.0';
let server: VirtualHosts | undefined;
const dirs: string[] = [];
// Keys the fleet run leaves in the shared test Redis: deleted after, so later runs start clean.
const keyPatterns: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-newuser-'));
  dirs.push(d);
  return d;
};
beforeAll(assertBuilt);
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  for (const p of keyPatterns.splice(0)) await deleteKeys(p);
});

describe('crawl --run', () => {
  it('without --redis is a usage error (exit 2) that names --redis, and touches nothing', async () => {
    const out = path.join(tmp(), 'out');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--run', 'nightly'], { stdin: 'http://a.test/\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--run needs --redis/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('a finished run name reused says so on stderr and suggests a new name', async () => {
    server = await startVirtualHosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const v = server;
    const dir = tmp();
    const run = `newuser-${randomBytes(4).toString('hex')}`;
    keyPatterns.push(`robots-gate:run:${run}:`, `robots-gate:*a.test:${v.port}`);
    const args = (worker: string) => [
      'crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'out'), '--min-interval', '0',
      '--redis', process.env.REDIS_URL!, '--run', run, '--worker', worker, ...v.resolve.flatMap((x) => ['--resolve', x]),
    ];
    const stdin = `${v.origin('a.test')}/a\n${v.origin('a.test')}/b\n`;
    const first = await runCli(args('w1'), { stdin });
    expect(first.code).toBe(0);
    expect(first.stderr).not.toMatch(/already finished/);
    const again = await runCli(args('w2'), { stdin });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`run "${run}" has already finished: nothing was left to do.*new --run name`));
    expect(v.requests('a.test').filter((r) => r.path !== '/robots.txt')).toHaveLength(2);
  });
});
