// A new user's Ctrl-C then --resume: the host must not see the two runs' requests closer together
// than its interval (the resumed run's first request is spaced from the killed run's last one).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-newuser-');

describe('crawl: politeness across a restart', () => {
  it('the first request after --resume keeps the interval from the last request of the interrupted run', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, [1, 2].map((i) => `${v.origin('a.test')}/p${i}`).join('\n') + '\n');
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '3000', ...resolveArgs(v)];
    const pages = () => v.requests('a.test').filter((r) => r.path !== '/robots.txt');

    const first = await runCli(args, {
      onStart: (child) => {
        // Ctrl-C just after the first document request has been answered (restarting takes a
        // second or two here: the interval is larger than that).
        const poll = setInterval(() => {
          const p = pages();
          if (p.length >= 1 && p[0]!.endedAt !== undefined) {
            clearInterval(poll);
            setTimeout(() => child.kill('SIGINT'), 50);
          }
        }, 10);
        child.once('close', () => clearInterval(poll));
      },
    });
    expect(first.code).toBe(130);
    const before = pages().length;
    expect(before).toBe(1);

    const second = await runCli([...args, '--resume']);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/resuming: 1 URL already settled, 1 to go/);
    const all = pages();
    expect(all.length).toBe(2);
    // Gap = next request start - previous response end, as the server saw it.
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.startedAt - all[i - 1]!.endedAt!, `gap before request ${i + 1}`).toBeGreaterThanOrEqual(3000);
    }
  }, 20_000);
});
