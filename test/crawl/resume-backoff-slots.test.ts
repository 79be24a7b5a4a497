// --resume while hosts are still under the stopped run's 429 back-off: the frontier must know
// when each such host opens, or it hands the host's URL to a worker as soon as the floor has
// passed, and that worker then sits in the limiter's wait (up to the back-off's end: an hour
// here) holding one of the --concurrency slots. With as many backed-off hosts as slots, the
// healthy hosts behind them were never reached; and the progress line's ETA counted no back-off.
// Everything is measured at the server: which requests arrived, and the gap from each 429 (and
// hold) to the next request to its host; the gaps' upper bounds are the back-off itself (5 s),
// which the unfixed crawl kept a second time.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site, type HostHandler } from '../helpers/hosts.js';
import { interruptWhen, runCli } from '../cli/run-cli.js';
import { crawlFixture, writeList } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-resume-slots-');

/** A host whose first /p is answered 429 with `retryAfter`, later ones 200. */
function busyOnce(retryAfter: string, robots = 'User-agent: *\nAllow: /\n'): HostHandler {
  let answered = false;
  return (req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    if (req.url === '/p' && !answered) {
      answered = true;
      return void res.writeHead(429, { 'retry-after': retryAfter }).end('slow down');
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
  };
}

describe('crawl --resume: a host still backing off holds no concurrency slot', () => {
  it('two hosts under Retry-After: 3600 and --concurrency 2: the healthy hosts are crawled, the backed-off ones get nothing', async () => {
    const v = await hosts({
      'b1.test': busyOnce('3600'),
      'b2.test': busyOnce('3600'),
      'h1.test': site('User-agent: *\nAllow: /\n'),
      'h2.test': site('User-agent: *\nAllow: /\n'),
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const busy = ['b1.test', 'b2.test'].map((h) => `${v.origin(h)}/p`);
    const common = ['--user-agent', UA, '--out', out, '--min-interval', '300', '--concurrency', '2', ...resolveArgs(v)];
    const answered = (h: string) => v.requests(h, '/p')[0]?.endedAt !== undefined;

    // Ctrl-C once both 429s have been answered: each host is then backing off for an hour.
    const first = await runCli(['crawl', writeList(dir, 'first.txt', busy), ...common], { onStart: interruptWhen(() => answered('b1.test') && answered('b2.test')) });
    expect(first.code, first.stderr).toBe(130);
    const sentBefore = { b1: v.requests('b1.test').length, b2: v.requests('b2.test').length };

    // The resumed run: the same two URLs and two healthy hosts with two pages each. Each healthy
    // host's second page waits out the floor, by which time the frontier (unfixed) handed both
    // backed-off hosts to the two workers. Stopped once every healthy page has arrived (or after
    // 20 s, far longer than the four pages and their 300 ms gaps need).
    const healthy = ['h1.test', 'h2.test'].flatMap((h) => ['/a', '/b'].map((p) => `${v.origin(h)}${p}`));
    const healthyDone = () => ['h1.test', 'h2.test'].every((h) => v.requests(h, '/b')[0]?.endedAt !== undefined);
    // A progress line is awaited too: its ETA counts the back-off the resumed hosts are under.
    let err = '';
    const progressed = () => /progress: .*ETA/.test(err);
    const stopAt = Date.now() + 20_000;
    const second = await runCli(['crawl', writeList(dir, 'second.txt', [...busy, ...healthy]), ...common, '--resume', '--progress-interval', '200'], {
      timeoutMs: 40_000,
      onStart: (child) => {
        child.stderr!.on('data', (d) => (err += d));
        interruptWhen(() => (healthyDone() && progressed()) || Date.now() > stopAt)(child);
      },
    });
    expect(second.code, second.stderr).toBe(130);
    for (const h of ['h1.test', 'h2.test']) {
      expect(v.requests(h).map((r) => r.path), `${h} in the resumed run`).toEqual(['/robots.txt', '/a', '/b']);
    }
    // The backed-off hosts got nothing, their robots.txt request included.
    expect({ b1: v.requests('b1.test').length, b2: v.requests('b2.test').length }).toEqual(sentBefore);
    const eta = /ETA ~(\d+) (min|s)/.exec(second.stderr.split('\n').filter((l) => l.includes('ETA')).at(-1) ?? '');
    expect(eta && [eta[2], Number(eta[1]) >= 50], second.stderr).toEqual(['min', true]);
  }, 60_000);

  it('once the hold ends the host is crawled at its interval, and the audit names what held it: the back-off, the Crawl-delay', async () => {
    const v = await hosts({
      'b1.test': busyOnce('5'),
      'c1.test': site('User-agent: *\nCrawl-delay: 4\nAllow: /\n'),
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const urls = [`${v.origin('b1.test')}/p`, `${v.origin('b1.test')}/q`, `${v.origin('c1.test')}/x`, `${v.origin('c1.test')}/y`];
    const list = writeList(dir, 'urls.txt', urls);
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '300', '--concurrency', '2', ...resolveArgs(v)];
    // Ctrl-C once b1's 429 and c1's /x have been answered: b1 is backing off 5 s, c1 keeping 4 s.
    const ended = (h: string, p: string) => v.requests(h, p)[0]?.endedAt !== undefined;
    const first = await runCli(args, { onStart: interruptWhen(() => ended('b1.test', '/p') && ended('c1.test', '/x')) });
    expect(first.code, first.stderr).toBe(130);
    const sent = { b1: v.requests('b1.test').length, c1: v.requests('c1.test').length };
    const r429 = v.requests('b1.test', '/p')[0]!;

    const second = await runCli([...args, '--resume'], { timeoutMs: 40_000 });
    expect(second.code, second.stderr).toBe(0);
    const b1 = v.requests('b1.test').slice(sent.b1);
    expect(b1.map((r) => r.path)).toEqual(['/robots.txt', '/p', '/q']);
    expect(b1[0]!.startedAt - r429.endedAt!, "gap from b1's 429 to the resumed run's first request").toBeGreaterThanOrEqual(5000);
    // After the hold, the floor: the back-off is no interval to keep again before the page after
    // robots.txt, nor before the next page (the unfixed crawl asked the limiter for the back-off's
    // length as the page's interval, so each of these gaps was 5 s or more).
    for (let i = 1; i < b1.length; i++) {
      const gap = b1[i]!.startedAt - b1[i - 1]!.endedAt!;
      expect(gap, `gap before b1's ${b1[i]!.path}`).toBeGreaterThanOrEqual(300);
      expect(gap, `gap before b1's ${b1[i]!.path}`).toBeLessThan(5000);
    }

    const a = openAudit(out);
    try {
      // Answered 200 only in the resumed run: /p was the 429, /y was never sent before the stop.
      const rows = a.attempts().filter((x) => x.status === 200);
      const reasonOf = (u: string) => rows.find((x) => x.url === u)?.waitReason;
      expect({ p: reasonOf(urls[0]!), y: reasonOf(urls[3]!) }).toEqual({ p: 'backoff', y: 'crawl-delay' });
    } finally {
      a.close();
    }
  }, 60_000);
});
