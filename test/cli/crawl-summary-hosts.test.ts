// The crawl summary's "slowest hosts" table: its time is a host's robots.txt response (the first
// request waits its interval from there) or first request's start, to its last response's end, and
// the interval column counts that first wait, as `audit` and the report do (a new user read "5 ms,
// interval -" for a host whose page the server saw 2.1 s after the robots.txt request). A host whose
// robots.txt this run did not fetch (resumed on a fresh copy) and with one URL shows its request's
// own duration: a few ms on loopback, which must read as that, not as "0.0 s".
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-summary-');

/** The "slowest hosts" rows, by host name (port dropped): [URLs, time, interval, why]. */
function slowestRows(stdout: string): Map<string, string[]> {
  const lines = stdout.split('\n');
  const at = lines.indexOf('slowest hosts');
  expect(at).toBeGreaterThan(-1);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(at + 2)) {
    if (line.trim() === '') break;
    const [host, urls, ...rest] = line.split(/\s{2,}/);
    rows.set(host!.replace(/:\d+$/, ''), [urls!, ...rest]);
  }
  return rows;
}

describe('crawl summary, slowest hosts', () => {
  it('times a one-URL host from its robots.txt request, with the floor it waited after it', async () => {
    const dir = tmp();
    const rules = site('User-agent: *\nAllow: /\n');
    const v = await hosts({
      // Its page answers after 30 ms, so its time cannot round to nothing on a fast machine.
      'one.test': (req, res) => (req.url === '/robots.txt' ? rules(req, res) : void setTimeout(() => void rules(req, res), 30)),
      'two.test': rules,
    });
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, [`${v.origin('one.test')}/a`, `${v.origin('two.test')}/1`, `${v.origin('two.test')}/2`].join('\n') + '\n');
    const r = await runCli(['crawl', list, '--user-agent', 'SumBot/1.0', '--out', path.join(dir, 'out'), '--min-interval', '200', ...resolveArgs(v)]);
    expect(r.code).toBe(0);
    const rows = slowestRows(r.stdout);
    const one = rows.get('one.test');
    expect(one).toBeDefined();
    const [urls, time, interval, why] = one!;
    expect(urls).toBe('1');
    // 200 ms after the robots.txt response, then 30 ms of answering.
    expect(time).toMatch(/^\d+ ms$/);
    expect(parseInt(time!, 10)).toBeGreaterThanOrEqual(230);
    expect(interval).toBe('200 ms');
    expect(why).toBe('the floor (--min-interval, 2 s unless set)');
    // A host of several URLs keeps its span, with the interval that made it.
    expect(rows.get('two.test')![0]).toBe('2');
    expect(rows.get('two.test')![3]).toBe('the floor (--min-interval, 2 s unless set)');
  });

  it('counts a host\'s retried 503s in its time, and names the back-off that held it', async () => {
    const dir = tmp();
    const rules = site('User-agent: *\nAllow: /\n');
    let busy = 0;
    const v = await hosts({
      // The first request to /p1 is answered 503 with Retry-After: 1 (s); the retry is fetched.
      'busy.test': (req, res) => {
        if (req.url === '/p1' && busy++ === 0) return void res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('busy');
        rules(req, res);
      },
    });
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, [`${v.origin('busy.test')}/p1`, `${v.origin('busy.test')}/p2`].join('\n') + '\n');
    const r = await runCli(['crawl', list, '--user-agent', 'SumBot/1.0', '--out', path.join(dir, 'out'), '--min-interval', '100', ...resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);
    const [urls, time, interval, why] = slowestRows(r.stdout).get('busy.test')!;
    expect(urls).toBe('2');
    // 503, a second's back-off, the retry, 100 ms, /p2: over a second, from the 503's start.
    expect(time).toMatch(/^\d+\.\d s$/);
    expect(parseFloat(time!)).toBeGreaterThanOrEqual(1);
    expect(Number(interval!.replace(/ ms$/, ''))).toBeGreaterThanOrEqual(1000);
    expect(why).toBe('backed off (429/503)');
  });
});
