// --resume right after a Ctrl-C during a 429/503 back-off must keep that back-off: the stopped
// run would have sent nothing to the host until Retry-After had passed (or the crawl's default
// back-off, 10 s, when the value is not one the crawl reads), and the resumed run's first request
// (its robots.txt) must not come sooner. It came after the 1 s floor. Gaps are measured at the
// server: the resumed run's first request's arrival minus the 503's end. The back-offs are well
// above the CLI's start-up time, which is all an unseeded run waits.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostHandler } from '../helpers/hosts.js';
import { interruptWhen, runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-resume-bo-');

/** A host whose first /p is answered 503 with `retryAfter` (none when undefined), later ones 200. */
function busyOnce(retryAfter: string | undefined): HostHandler {
  let answered = false;
  return (req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (!answered) {
      answered = true;
      return void res.writeHead(503, retryAfter === undefined ? {} : { 'retry-after': retryAfter }).end('busy');
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
  };
}

describe('crawl --resume keeps the back-off the stopped run was under', () => {
  it('Retry-After: 4 holds the host 4 s from the 503; an unreadable one ("4.5") the default 10 s', async () => {
    const v = await hosts({ 'ra.test': busyOnce('4'), 'bad.test': busyOnce('4.5') });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, `${v.origin('ra.test')}/p\n${v.origin('bad.test')}/p\n`);
    const out = path.join(dir, 'out');
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '1000', ...resolveArgs(v)];
    const busy = (host: string) => v.requests(host, '/p')[0];

    // Ctrl-C once both 503s have been answered: each host is then backing off.
    const first = await runCli(args, { onStart: interruptWhen(() => busy('ra.test')?.endedAt !== undefined && busy('bad.test')?.endedAt !== undefined) });
    expect(first.code, first.stderr).toBe(130);
    const sent = { ra: v.requests('ra.test').length, bad: v.requests('bad.test').length };
    expect(sent).toEqual({ ra: 2, bad: 2 });

    const second = await runCli([...args, '--resume'], { timeoutMs: 40_000 });
    expect(second.code, second.stderr).toBe(0);
    for (const [host, n, backoffMs] of [['ra.test', sent.ra, 4000], ['bad.test', sent.bad, 10_000]] as const) {
      const next = v.requests(host)[n]!;
      expect(next.path).toBe('/robots.txt');
      expect(next.startedAt - busy(host)!.endedAt!, `gap from ${host}'s 503 to the resumed run's first request`).toBeGreaterThanOrEqual(backoffMs);
      // The page itself, retried in the resumed run, once.
      expect(v.requests(host, '/p')).toHaveLength(2);
    }
  }, 60_000);
});
