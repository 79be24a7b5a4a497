// check and explain take the robots.txt timeout by crawl's name for it too (--robots-timeout): a
// new user who had used crawl's name got "unknown option".
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { hosts, resolveArgs } = crawlFixture('rg-check-timeout-');
// A robots.txt that never answers.
const silent = () => {};

describe('check and explain --robots-timeout', () => {
  it.each(['check', 'explain'])('%s: a robots.txt slower than --robots-timeout is unreachable, all disallowed', async (cmd) => {
    const v = await hosts({ 'slow.test': silent });
    const started = Date.now();
    const r = await runCli([cmd, `${v.origin('slow.test')}/a`, '--user-agent', 'TestBot/1.0', '--robots-timeout', '300', '--json', ...resolveArgs(v)], { timeoutMs: 20_000 });
    // Well inside the 10 s default of --timeout: the option was read.
    expect(Date.now() - started).toBeLessThan(8_000);
    const d = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
  });

  it('a bad value is named by the option given', async () => {
    const r = await runCli(['check', 'https://example.test/', '--user-agent', 'TestBot/1.0', '--robots-timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--robots-timeout must be a whole number of ms >= 1, got "soon"');
  });
});
