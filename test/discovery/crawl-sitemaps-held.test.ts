// `crawl --sitemaps --resume` while hosts are still under the stopped run's 429 back-off: the
// sitemap phase reads 8 origins at once, and it took them in list order, so with the 8 held ones
// first every phase slot sat in the limiter's wait until the back-off ended, and the open origins'
// sitemaps waited with them (an hour, for a Retry-After: 3600). Measured at the server: the open
// hosts' sitemaps arrive before any request of the resumed run to a held host, no held host gets
// one before its back-off ends, and each held origin is still read (and crawled) once it opens.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import type { HostHandler } from '../helpers/hosts.js';
import { crawlFixture, writeList } from '../cli/crawl-fixture.js';
import { interruptWhen, runCli } from '../cli/run-cli.js';
import { urlset } from './sitemap-server.js';

const UA = 'MapBot/1.0 (+https://example.test/bot)';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-sitemaps-held-');
/** Seconds: long enough to outlast the stop and the resumed run's start on a loaded machine. */
const RETRY_AFTER = 8;

/** An origin whose robots.txt names /s.xml listing /p and /q; with `busy`, its first /p is
 *  answered 429 with Retry-After (`retryAfter` s). */
function origin(busy: boolean, retryAfter = RETRY_AFTER): HostHandler {
  let answered = !busy;
  return (req, res) => {
    const base = `http://${req.headers.host}`;
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${base}/s.xml\n`);
    if (req.url === '/s.xml') return void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([`${base}/p`, `${base}/q`]));
    if (req.url === '/p' && !answered) {
      answered = true;
      return void res.writeHead(429, { 'retry-after': String(retryAfter) }).end('slow down');
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
  };
}

describe('crawl --sitemaps --resume: origins held by an earlier back-off hold no sitemap slot', () => {
  it('8 held origins listed first: the open origins are read first, each held one once its back-off ends, and the phase names them', async () => {
    const held = Array.from({ length: 8 }, (_, i) => `b${i}.test`);
    const open = ['h0.test', 'h1.test'];
    const v = await hosts(Object.fromEntries([...held.map((h) => [h, origin(true)] as const), ...open.map((h) => [h, origin(false)] as const)]));
    const dir = tmp();
    const out = path.join(dir, 'out');
    const common = ['--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '100', '--concurrency', '8', ...resolveArgs(v)];
    const answered = (h: string) => v.requests(h, '/p')[0]?.endedAt !== undefined;

    // The first run reads the held origins' sitemaps and is stopped once each /p has been
    // answered 429: every held host is then backing off RETRY_AFTER seconds.
    const first = await runCli(['crawl', writeList(dir, 'first.txt', held.map((h) => v.origin(h))), ...common], {
      onStart: interruptWhen(() => held.every(answered)),
    });
    expect(first.code, first.stderr).toBe(130);
    const sentBefore = new Map(held.map((h) => [h, v.requests(h).length]));
    const r429 = new Map(held.map((h) => [h, v.requests(h, '/p')[0]!]));

    // The resumed run: the held origins first in the list, the open ones after.
    const spawnedAt = performance.timeOrigin + performance.now();
    const second = await runCli(['crawl', writeList(dir, 'second.txt', [...held, ...open].map((h) => v.origin(h))), ...common, '--resume', '--progress-interval', '200'], {
      timeoutMs: 60_000,
    });
    expect(second.code, second.stderr).toBe(0);
    const resumed = (h: string) => v.requests(h).slice(sentBefore.get(h) ?? 0);

    // Precondition: the resumed run was started while the holds still stood (on a machine so slow
    // that it was not, this tests nothing, and says so).
    const holdsEnd = Math.min(...held.map((h) => r429.get(h)!.endedAt! + RETRY_AFTER * 1000));
    expect(spawnedAt, 'the resumed run started before the back-offs ended').toBeLessThan(holdsEnd);

    // The open origins' sitemaps came before the resumed run's first request to any held host.
    const firstHeld = Math.min(...held.map((h) => resumed(h)[0]!.startedAt));
    for (const h of open) {
      expect(v.requests(h).map((r) => r.path), h).toEqual(['/robots.txt', '/s.xml', '/p', '/q']);
      expect(v.requests(h, '/s.xml')[0]!.startedAt, `${h}'s sitemap before the first request to a held host`).toBeLessThan(firstHeld);
    }
    // Each held host: nothing before its back-off ended, then read (robots.txt again; the sitemap
    // the first run settled is replayed) and crawled.
    for (const h of held) {
      const rs = resumed(h);
      expect(rs[0]!.startedAt - r429.get(h)!.endedAt!, `gap from ${h}'s 429 to the resumed run's first request`).toBeGreaterThanOrEqual(RETRY_AFTER * 1000);
      expect(rs.map((r) => r.path), h).toEqual(['/robots.txt', '/p', '/q']);
    }

    // The phase names each held host and when its back-off ends, as the audit gives it.
    const a = openAudit(out);
    let until: Map<string, string>;
    try {
      const rows = a.attempts().filter((x) => x.status === 429);
      until = new Map(rows.map((x) => [x.host, new Date(Date.parse(x.endedAt) + RETRY_AFTER * 1000).toISOString()]));
    } finally {
      a.close();
    }
    const line = second.stderr.split('\n').find((l) => l.includes("held by an earlier run's back-off")) ?? '';
    expect(line, second.stderr).toMatch(/sitemaps: 8 hosts are held by an earlier run's back-off/);
    for (const h of held) expect(line).toContain(`${new URL(v.origin(h)).host} until ${until.get(new URL(v.origin(h)).host)}`);
    // While only held origins are left, the progress line says what the phase waits for.
    expect(second.stderr).toMatch(/sitemaps: \d+ sitemaps? read, \d+ URLs? found; waiting for 8 hosts held by an earlier run's back-off, the first until \S+Z/);
    expect(second.stderr).toMatch(/sitemaps: 2 sitemaps read, 0 failed, 0 blocked; 20 URLs found on 10 hosts \(8 hosts read once an earlier run's back-off ended\)/);
  }, 90_000);

  it('Retry-After: 3600 on the 8 origins listed first: the open origins are read at once, the held hosts get nothing', async () => {
    const held = Array.from({ length: 8 }, (_, i) => `b${i}.test`);
    const open = ['h0.test', 'h1.test'];
    const v = await hosts(Object.fromEntries([...held.map((h) => [h, origin(true, 3600)] as const), ...open.map((h) => [h, origin(false)] as const)]));
    const dir = tmp();
    const out = path.join(dir, 'out');
    const common = ['--sitemaps', '--user-agent', UA, '--out', out, '--min-interval', '100', '--concurrency', '8', ...resolveArgs(v)];
    const answered = (h: string, p: string) => v.requests(h, p)[0]?.endedAt !== undefined;
    const first = await runCli(['crawl', writeList(dir, 'first.txt', held.map((h) => v.origin(h))), ...common], {
      onStart: interruptWhen(() => held.every((h) => answered(h, '/p'))),
    });
    expect(first.code, first.stderr).toBe(130);
    const sentBefore = new Map(held.map((h) => [h, v.requests(h).length]));

    // Stopped once both open origins' sitemaps have been answered and the phase says it waits, or
    // after 20 s (the unfixed phase had every slot in the limiter's hour-long wait by then).
    let err = '';
    const stopAt = Date.now() + 20_000;
    await runCli(['crawl', writeList(dir, 'second.txt', [...held, ...open].map((h) => v.origin(h))), ...common, '--resume', '--progress-interval', '200'], {
      timeoutMs: 40_000,
      onStart: (child) => {
        child.stderr!.on('data', (d) => (err += d));
        interruptWhen(() => (open.every((h) => answered(h, '/s.xml')) && /; waiting for 8 hosts/.test(err)) || Date.now() > stopAt)(child);
      },
    });
    for (const h of open) expect(v.requests(h).map((r) => r.path), h).toEqual(['/robots.txt', '/s.xml']);
    for (const h of held) expect(v.requests(h).length, `${h}: nothing in the resumed run`).toBe(sentBefore.get(h));
    // Named with the hour the back-off ends (the audit's 429 end plus 3600 s).
    const line = err.split('\n').find((l) => l.includes("held by an earlier run's back-off")) ?? '';
    const a = openAudit(out);
    try {
      for (const x of a.attempts().filter((r) => r.status === 429)) {
        expect(line, err).toContain(`${x.host} until ${new Date(Date.parse(x.endedAt) + 3_600_000).toISOString()}`);
      }
    } finally {
      a.close();
    }
  }, 90_000);
});
