// --resume right after a stop must keep the interval the stopped run was keeping for each host,
// at its first request (robots.txt) too: (a) a Crawl-delay above the floor, which the resumed
// run's gate learns only from that very request; (b) a run killed (SIGKILL) with a request in
// flight, which left no row for it. Gaps are measured at the server: next request's start minus
// the previous response's end (for a response cut by the kill, when its connection closed).
// The intervals are well above the CLI's start-up time, which is all an unseeded run waits.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { interruptWhen, runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-resume-iv-');
const now = () => performance.timeOrigin + performance.now();

function listOf(dir: string, urls: string[]): string {
  const list = path.join(dir, 'urls.txt');
  fs.writeFileSync(list, urls.join('\n') + '\n');
  return list;
}

describe('crawl --resume: the first request keeps the earlier run\'s interval', () => {
  it('(a) a Crawl-delay above the floor counts from the interrupted run\'s last response, before robots.txt is fetched again', async () => {
    const v = await hosts({ 'b.test': site('User-agent: *\nCrawl-delay: 5\nAllow: /\n') });
    const dir = tmp();
    const list = listOf(dir, [1, 2].map((i) => `${v.origin('b.test')}/r${i}`));
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '1000', ...resolveArgs(v)];
    const page = () => v.requests('b.test', '/r1')[0];

    // Ctrl-C once /r1 has been answered: /r2 is then waiting out the Crawl-delay.
    const first = await runCli(args, { onStart: interruptWhen(() => page()?.endedAt !== undefined) });
    expect(first.code).toBe(130);
    const r1 = page()!;
    const sent = v.log.length;

    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    const next = v.log[sent]!;
    expect(next.path).toBe('/robots.txt');
    expect(next.startedAt - r1.endedAt!, 'gap from /r1 to the resumed run\'s robots.txt request').toBeGreaterThanOrEqual(5000);
    const all = v.requests('b.test');
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.startedAt - all[i - 1]!.endedAt!, `gap before ${all[i]!.path} (request ${i + 1})`).toBeGreaterThanOrEqual(1000);
    }
  }, 45_000);

  it('(d) the same for two hosts serving one robots.txt text: each host\'s own request is what the resumed run waits from', async () => {
    // `policies` keeps a text once, under the first origin that served it: the second host's fetch
    // is known from `policy_fetches` alone.
    const text = 'User-agent: *\nCrawl-delay: 3\nAllow: /\n';
    const v = await hosts({ 'a.test': site(text), 'b.test': site(text) });
    const dir = tmp();
    const list = listOf(dir, ['a.test', 'b.test'].map((h) => `${v.origin(h)}/r1`));
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '300', ...resolveArgs(v)];
    const robots = (h: string) => v.requests(h, '/robots.txt')[0];

    const first = await runCli(args, { onStart: interruptWhen(() => robots('a.test')?.endedAt !== undefined && robots('b.test')?.endedAt !== undefined) });
    expect(first.code).toBe(130);
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    for (const h of ['a.test', 'b.test']) {
      const [r0, again] = v.requests(h, '/robots.txt');
      expect(again!.startedAt - r0!.endedAt!, `${h}: gap between the two runs' robots.txt requests`).toBeGreaterThanOrEqual(3000);
      expect(v.requests(h, '/r1')).toHaveLength(1);
    }
  }, 45_000);

  it('(c) stopped after its robots.txt and before any page: the resumed run\'s robots.txt keeps that file\'s Crawl-delay from it', async () => {
    const v = await hosts({ 'b.test': site('User-agent: *\nCrawl-delay: 4\nAllow: /\n') });
    const dir = tmp();
    const list = listOf(dir, [`${v.origin('b.test')}/r1`]);
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '300', ...resolveArgs(v)];
    const robots = () => v.requests('b.test', '/robots.txt')[0];

    // Ctrl-C once robots.txt has been answered: /r1 is waiting out the Crawl-delay, no page row yet.
    const first = await runCli(args, { onStart: interruptWhen(() => robots()?.endedAt !== undefined) });
    expect(first.code).toBe(130);
    expect(v.requests('b.test', '/r1')).toHaveLength(0);
    const r0 = robots()!;

    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    const again = v.requests('b.test', '/robots.txt')[1]!;
    // The file the stopped run was last given is in the audit (policies), though no row went by it.
    expect(again.startedAt - r0.endedAt!, 'gap between the two runs\' robots.txt requests').toBeGreaterThanOrEqual(4000);
    expect(v.requests('b.test', '/r1')).toHaveLength(1);
  }, 45_000);

  it('(b) after a SIGKILL with a response held in flight, the resumed run waits the interval from the kill', async () => {
    let held: { closedAt?: number } | undefined;
    const plain = site('User-agent: *\nAllow: /\n');
    const v = await hosts({
      'b.test': (req, res) => {
        // The first /r1 is held until the client goes away (the kill closes its connection).
        if (req.url === '/r1' && held === undefined) {
          const h: { closedAt?: number } = {};
          held = h;
          res.once('close', () => (h.closedAt = now()));
          return;
        }
        return plain(req, res);
      },
    });
    const dir = tmp();
    const list = listOf(dir, [`${v.origin('b.test')}/r1`]);
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '5000', ...resolveArgs(v)];

    // Killed 500 ms into the held request: longer than anything the killed run recorded is alive.
    let arrived: number | undefined;
    const first = await runCli(args, {
      onStart: interruptWhen(() => {
        if (held === undefined) return false;
        arrived ??= now();
        return now() - arrived >= 500;
      }, 'SIGKILL'),
    });
    expect(first.signal).toBe('SIGKILL');
    // The server sees the connection close when the process dies.
    for (let i = 0; i < 100 && held?.closedAt === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    const cutAt = held!.closedAt!;
    expect(cutAt).toBeDefined();
    const sent = v.log.length;

    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    const next = v.log[sent]!;
    expect(next.path).toBe('/robots.txt');
    expect(next.startedAt - cutAt, 'gap from the killed /r1 to the resumed run\'s first request').toBeGreaterThanOrEqual(5000);
    expect(second.stderr).toMatch(/did not end cleanly \(no end recorded: killed\?\): requests it had in flight left no row, so 1 host it may have been sending to is taken as answered at /);
    expect(v.requests('b.test').filter((r) => r.path !== '/robots.txt').map((r) => r.path).sort()).toEqual(['/r1', '/r1']);
  }, 45_000);
});
