// `robots-gate crawl` against hostile input and hostile sites, run as a user would (the built CLI
// as a subprocess, real loopback servers).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-hostile-');

describe('robots-gate crawl against hostile sites', () => {
  it('a page larger than --max-page-bytes is cut there, and its row says truncated', async () => {
    // The server would send 8 MiB; the crawl reads 64 KiB and stops.
    const v = await hosts({
      'huge.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200).end('User-agent: *\nAllow: /\n');
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(8 * 1024 * 1024) });
        let n = 0;
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (n < 128) {
            n++;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        pump();
      },
      'small.test': site('User-agent: *\nAllow: /\n'),
      // Cut short by a stall, not by the cap: an error row, not one of the documents cut at the cap.
      'stall.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200).end('User-agent: *\nAllow: /\n');
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
        res.write('<html');
      },
    });
    const out = path.join(tmp(), 'out');
    const r = await runCli(
      ['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '0', '--max-page-bytes', '65536', '--timeout', '1500', '--json', ...resolveArgs(v)],
      { stdin: `${v.origin('huge.test')}/big\n${v.origin('small.test')}/page\n${v.origin('stall.test')}/stalls\n` },
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1); // the stalled page ended in error
    const a = openAudit(out);
    const rows = a.attempts({ kind: 'page' });
    expect(rows.find((x) => x.url.endsWith('/stalls'))).toMatchObject({ outcome: 'error' });
    a.close();
    const big = rows.find((x) => x.url.endsWith('/big'))!;
    const small = rows.find((x) => x.url.endsWith('/page'))!;
    expect(big.truncated).toBe(true);
    expect(big.bytes).toBe(65536);
    expect(fs.statSync(path.join(out, big.savedPath!)).size).toBe(65536);
    expect(small.truncated).toBe(false);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { truncated: number };
    expect(summary.truncated).toBe(1);
  });

  it('a page cut short mid-body is not saved: the next crawl into that --out puts the whole page at its own path', async () => {
    // The first run's response stops after 5 of its 1,000 octets (a reset); the next is whole.
    let cut = true;
    const whole = '<html>' + 'w'.repeat(994);
    const v = await hosts({
      'cut.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200).end('User-agent: *\nAllow: /\n');
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
        if (!cut) return void res.end(whole);
        res.write('<html');
        setTimeout(() => req.socket.destroy(), 50);
      },
    });
    const out = path.join(tmp(), 'out');
    const args = ['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '0', '--json', ...resolveArgs(v)];
    const first = await runCli(args, { stdin: `${v.origin('cut.test')}/doc\n` });
    expect(first.code).toBe(1);
    let a = openAudit(out);
    expect(a.attempts({ kind: 'page' })).toMatchObject([{ outcome: 'error', status: 200, bytes: 5, savedPath: null }]);
    a.close();
    expect(fs.readdirSync(out).filter((f) => f.startsWith('cut.test'))).toEqual([]);
    cut = false;
    // An error row settles its URL (--resume would not ask again): a new crawl into the same --out.
    const again = await runCli(args, { stdin: `${v.origin('cut.test')}/doc\n` });
    expect(again.code).toBe(0);
    a = openAudit(out);
    const done = a.attempts({ kind: 'page' }).find((x) => x.outcome === 'fetched')!;
    a.close();
    expect(done.savedPath).not.toContain('_conflicts');
    expect(fs.readFileSync(path.join(out, done.savedPath!), 'utf8')).toBe(whole);
  });

  it('a host that disallows 100,000 queued URLs does not starve other hosts\' robots.txt requests into timeouts', async () => {
    // Its URLs are recorded as blocked from the cached policy, work that never waits on I/O: done
    // in one run it held the event loop for seconds, and robots.txt responses sat unread past
    // --robots-timeout (their hosts then counted unreachable, everything there disallowed).
    const slow = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (req.url === '/robots.txt') return void setTimeout(() => res.end('User-agent: *\nAllow: /\n'), 100);
      res.end('page');
    };
    const v = await hosts({
      'deny.test': site('User-agent: *\nDisallow: /\n'),
      ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`ok${i}.test`, slow])),
    });
    const lines = Array.from({ length: 100_000 }, (_, i) => `${v.origin('deny.test')}/p${i}`);
    for (let i = 0; i < 8; i++) lines.splice(1 + i * 5, 0, `${v.origin(`ok${i}.test`)}/a`);
    const out = path.join(tmp(), 'out');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '0', '--robots-timeout', '800', ...resolveArgs(v)], { stdin: lines.join('\n') + '\n' });
    expect(r.stderr).not.toMatch(/unreachable/);
    expect(r.code).toBe(0);
    const a = openAudit(out);
    expect(a.attempts({ kind: 'page' }).filter((x) => x.outcome === 'fetched')).toHaveLength(8);
    a.close();
  }, 60_000);

  it('--max-page-bytes that is not a positive number is a usage error', async () => {
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(tmp(), 'o'), '--max-page-bytes', 'lots'], { stdin: 'http://a.test/\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-page-bytes must be a number/);
  });

  it('--resume under another user agent is refused (its decisions are not ours); another list is said, and only settled URLs skipped', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const out = path.join(tmp(), 'out');
    const urls = (n: number[]) => n.map((i) => `${v.origin('a.test')}/p${i}`).join('\n') + '\n';
    const base = ['--out', out, '--min-interval', '0', ...resolveArgs(v)];
    const first = await runCli(['crawl', '-', '--user-agent', 'FirstBot/1.0', ...base], { stdin: urls([1, 2]) });
    expect(first.code).toBe(0);

    const other = await runCli(['crawl', '-', '--user-agent', 'OtherBot/2.0', '--resume', ...base], { stdin: urls([1, 2, 3]) });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/cannot --resume: .* was crawled as "FirstBot\/1.0".*not "OtherBot\/2.0"/);
    // Under another purpose: what was kept for none would stay kept where ai-train is reserved.
    const purpose = await runCli(['crawl', '-', '--user-agent', 'FirstBot/1.0', '--purpose', 'ai-train', '--resume', ...base], { stdin: urls([1, 2, 3]) });
    expect(purpose.code).toBe(2);
    expect(purpose.stderr).toMatch(/cannot --resume: .* was crawled without --purpose \(run \S+\), not with --purpose ai-train; use another --out, or the same --purpose/);
    expect(v.requests('a.test').filter((r) => r.path !== '/robots.txt')).toHaveLength(2);

    const more = await runCli(['crawl', '-', '--user-agent', 'FirstBot/1.0', '--resume', ...base], { stdin: urls([1, 2, 3]) });
    expect(more.code).toBe(0);
    expect(more.stderr).toMatch(/the URL list differs from the one run \S+ crawled: 2 of its 3 URLs were settled in earlier runs/);
    expect(v.requests('a.test').filter((r) => r.path !== '/robots.txt').map((r) => r.path)).toEqual(['/p1', '/p2', '/p3']);
  });

  it('a second crawl into the same --out while one runs is refused (exit 2); after a SIGKILL the lock is taken over', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const out = path.join(tmp(), 'out');
    const list = Array.from({ length: 40 }, (_, i) => `${v.origin('a.test')}/p${i}`).join('\n') + '\n';
    const base = ['--user-agent', UA, '--out', out, '--min-interval', '100', ...resolveArgs(v)];
    let second: Promise<Awaited<ReturnType<typeof runCli>>> | undefined;
    const first = runCli(['crawl', '-', ...base], {
      stdin: list,
      onStart: (child) => {
        const poll = setInterval(() => {
          if (v.requests('a.test').length < 3) return;
          clearInterval(poll);
          second = runCli(['crawl', '-', ...base], { stdin: list });
          void second.then(() => child.kill('SIGKILL'));
        }, 20);
      },
    });
    const r1 = await first;
    expect(r1.signal).toBe('SIGKILL');
    const r2 = await second!;
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/another crawl \(process \d+\) is writing .*audit\.sqlite/);
    // No page was asked twice: the second crawl sent nothing.
    const pages = v.requests('a.test').filter((r) => r.path !== '/robots.txt').map((r) => r.path);
    expect(new Set(pages).size).toBe(pages.length);
    // The killed crawl left its lock; its process is gone, so --resume takes it over.
    expect(fs.existsSync(path.join(out, 'audit.sqlite.lock'))).toBe(true);
    const r3 = await runCli(['crawl', '-', '--resume', ...base.map((a) => (a === '100' ? '0' : a))], { stdin: list });
    expect(r3.code).toBe(0);
    expect(fs.existsSync(path.join(out, 'audit.sqlite.lock'))).toBe(false);
  });

  it('100,000 copies of one URL: one request, and stderr says how many lines were repeats', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const out = path.join(tmp(), 'out');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, ...resolveArgs(v)], { stdin: `${v.origin('a.test')}/same#frag\n`.repeat(100_000) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/99999 lines repeat an earlier URL/);
    expect(v.requests('a.test', '/same')).toHaveLength(1);
  });

  it('--audit-jsonl naming the SQLite audit or the URL list is refused before anything is written', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const d = tmp();
    const out = path.join(d, 'out');
    const list = path.join(d, 'urls.txt');
    fs.writeFileSync(list, `${v.origin('a.test')}/p\n`);
    const base = ['--user-agent', UA, '--out', out, '--min-interval', '0', ...resolveArgs(v)];
    expect((await runCli(['crawl', list, ...base])).code).toBe(0);
    const before = fs.readFileSync(path.join(out, 'audit.sqlite'));
    const intoDb = await runCli(['crawl', list, ...base, '--audit-jsonl', path.join(out, 'audit.sqlite')]);
    expect(intoDb.code).toBe(2);
    expect(intoDb.stderr).toMatch(/--audit-jsonl .* is the SQLite audit/);
    expect(fs.readFileSync(path.join(out, 'audit.sqlite')).equals(before)).toBe(true);
    const intoList = await runCli(['crawl', list, ...base, '--audit-jsonl', list]);
    expect(intoList.code).toBe(2);
    expect(intoList.stderr).toMatch(/is the URL list/);
    expect(fs.readFileSync(list, 'utf8')).toBe(`${v.origin('a.test')}/p\n`);
  });

  it('a log reader that goes away (stderr pipe closed) stops nothing: the crawl completes and records every URL', async () => {
    const v = await hosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
    const out = path.join(tmp(), 'out');
    const list = ['garbage line', ...Array.from({ length: 8 }, (_, i) => `${v.origin('a.test')}/p${i}`)].join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '20', '--progress-interval', '10', ...resolveArgs(v)], {
      stdin: list,
      onStart: (child) => child.stderr!.destroy(),
    });
    expect(r.code).toBe(1); // the garbage line
    const a = openAudit(out);
    const runs = a.runs();
    const rows = a.attempts({ kind: 'page' });
    a.close();
    expect(runs.at(-1)!.status).toBe('completed');
    expect(rows.filter((x) => x.outcome === 'fetched')).toHaveLength(8);
  });

  it('a user agent or --resolve entry the gate refuses is exit 2 before --out is created', async () => {
    for (const bad of [['--user-agent', ''], ['--user-agent', 'Bot\u0007'], ['--user-agent', UA, '--resolve', 'nonsense']]) {
      const out = path.join(tmp(), 'never');
      const r = await runCli(['crawl', '-', '--out', out, ...bad], { stdin: 'http://a.test/\n' });
      expect(r.code, bad.join(' ')).toBe(2);
      expect(fs.existsSync(out), bad.join(' ')).toBe(false);
    }
  });

  it('Ctrl-C while a robots.txt never answers: exit 130 in seconds, not after --robots-timeout', async () => {
    const v = await hosts({
      'hang.test': (req, res) => {
        if (req.url !== '/robots.txt') res.end('page');
      },
    });
    const out = path.join(tmp(), 'out');
    let sentAt = 0;
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--robots-timeout', '20000', ...resolveArgs(v)], {
      stdin: `${v.origin('hang.test')}/a\n${v.origin('hang.test')}/b\n`,
      timeoutMs: 30_000,
      onStart: (child) => {
        const poll = setInterval(() => {
          if (v.requests('hang.test', '/robots.txt').length === 0) return;
          clearInterval(poll);
          sentAt = Date.now();
          child.kill('SIGINT');
        }, 20);
      },
    });
    expect(r.stderr, r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(130);
    expect(Date.now() - sentAt).toBeLessThan(8_000);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const a = openAudit(out);
    expect(a.runs().at(-1)!.status).toBe('interrupted');
    a.close();
  });

  it('--override given a URL, a wildcard or a Unicode name is exit 2 with the host it should be (it matched nothing, silently)', async () => {
    const cases: [string, RegExp][] = [
      ['http://dis.test:8080/', /did you mean dis\.test:8080\?/],
      ['*', /--override takes a host name/],
      ['bücher.test', /did you mean xn--bcher-kva\.test\?/],
    ];
    for (const [value, message] of cases) {
      const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(tmp(), 'o'), '--override', value], { stdin: 'http://a.test/\n' });
      expect(r.code, value).toBe(2);
      expect(r.stderr, value).toMatch(message);
    }
  });
});
