// `robots-gate crawl` on the policies around the rules: redirects gated hop by hop, Crawl-delay
// over the maximum (skipped, or clamped), override with its interval, --json and progress lines.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const UA = 'TestBot/1.0';
const { tmp, hosts, resolveArgs } = crawlFixture('rg-pol-');
const pages = (log: LoggedRequest[]) => log.filter((r) => r.path !== '/robots.txt');

describe('robots-gate crawl policies', () => {
  it('a redirect into a path disallowed on another origin is stopped before that origin sees it, and each hop has its row', async () => {
    let v!: VirtualHosts;
    v = await hosts({
      'from.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
        if (req.url === '/go') return void res.writeHead(302, { location: `${v.origin('to.test')}/secret/page` }).end();
        if (req.url === '/ok') return void res.writeHead(301, { location: `${v.origin('to.test')}/public` }).end();
        res.end('page');
      },
      'to.test': site('User-agent: *\nDisallow: /secret\n'),
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '50', ...resolveArgs(v)], {
      stdin: `${v.origin('from.test')}/go\n${v.origin('from.test')}/ok\n`,
    });
    expect(r.code).toBe(0);
    expect(v.requests('to.test').map((q) => q.path).sort()).toEqual(['/public', '/robots.txt']);
    const a = openAudit(out);
    const rows = a.attempts();
    a.close();
    const go = rows.filter((x) => x.url.endsWith('/go') || x.parentUrl?.endsWith('/go'));
    expect(go.map((x) => [x.kind, x.outcome, x.status, x.reason])).toEqual([
      ['page', 'fetched', 302, 'allowed-by-rule'],
      ['redirect', 'blocked', null, 'disallowed-by-rule'],
    ]);
    expect(go[1]!.ruleLine).toBe(2);
    expect(go[1]!.robotsUrl).toBe(`${v.origin('to.test')}/robots.txt`);
    const ok = rows.filter((x) => x.url.endsWith('/public'));
    expect(ok.map((x) => [x.kind, x.outcome, x.status, x.parentUrl])).toEqual([['redirect', 'fetched', 200, `${v.origin('from.test')}/ok`]]);
    expect(ok[0]!.savedPath).toMatch(/^to\.test_\d+\/public$/);
  });

  it("a redirect target keeps its own host's interval: hops from one host to another are spaced like any request", async () => {
    let v!: VirtualHosts;
    v = await hosts({
      'short.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
        res.writeHead(301, { location: `${v.origin('long.test')}/doc${req.url}` }).end();
      },
      'long.test': site('User-agent: *\nCrawl-delay: 0.3\n'),
    });
    const list = [1, 2, 3, 4].map((i) => `${v.origin('short.test')}/${i}`).join('\n') + `\n${v.origin('long.test')}/own\n`;
    const dir = tmp();
    const out = path.join(dir, 'o');
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', out, '--min-interval', '50', '--concurrency', '8', ...resolveArgs(v)], { stdin: list });
    expect(r.code).toBe(0);
    const seen = pages(v.requests('long.test'));
    expect(seen.map((q) => q.path).sort()).toEqual(['/doc/1', '/doc/2', '/doc/3', '/doc/4', '/own']);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.startedAt - seen[i - 1]!.endedAt!).toBeGreaterThanOrEqual(300);
    const a = openAudit(out);
    const targets = a.attempts({ kind: 'redirect' });
    const sources = a.attempts({ host: `short.test:${v.port}` });
    a.close();
    expect(targets.map((x) => [new URL(x.parentUrl!).pathname, x.status, x.final]).sort()).toEqual([
      ['/1', 200, true],
      ['/2', 200, true],
      ['/3', 200, true],
      ['/4', 200, true],
    ]);
    expect(sources.every((x) => x.status === 301 && x.location === `${v.origin('long.test')}/doc${new URL(x.url).pathname}`)).toBe(true);
  });

  it('a Crawl-delay over --max-crawl-delay skips the host with a reason; --clamp-crawl-delay keeps it at the maximum', async () => {
    const v = await hosts({ 'slowpoke.test': site('User-agent: *\nCrawl-delay: 5\nDisallow: /private\n') });
    const list = [1, 2, 3].map((i) => `${v.origin('slowpoke.test')}/p${i}`).join('\n') + `\n${v.origin('slowpoke.test')}/private\n`;
    const dir = tmp();
    const skipped = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'a'), '--min-interval', '50', '--max-crawl-delay', '0.3', ...resolveArgs(v)], { stdin: list });
    expect(skipped.code).toBe(0);
    expect(pages(v.log)).toEqual([]);
    // Every URL of the host is skipped, the disallowed one too: the host is not crawled at all.
    expect(skipped.stdout).toMatch(/skipped\s+4/);
    expect(skipped.stdout).toMatch(/skipped: Crawl-delay 5 s is over the maximum 0\.3 s/);
    let a = openAudit(path.join(dir, 'a'));
    expect(a.attempts().map((x) => [x.outcome, x.reason])).toEqual(Array(4).fill(['skipped', 'crawl-delay-too-long']));
    a.close();

    const clamped = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'b'), '--min-interval', '50', '--max-crawl-delay', '0.3', '--clamp-crawl-delay', ...resolveArgs(v)], { stdin: list });
    expect(clamped.code).toBe(0);
    const seen = pages(v.log);
    expect(seen).toHaveLength(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.startedAt - seen[i - 1]!.endedAt!).toBeGreaterThanOrEqual(300);
    a = openAudit(path.join(dir, 'b'));
    // The first page's too: kept 300 ms after the robots.txt request.
    expect(a.attempts().filter((x) => x.intervalMs !== null).map((x) => [x.intervalMs, x.waitReason])).toEqual([
      [300, 'crawl-delay'],
      [300, 'crawl-delay'],
      [300, 'crawl-delay'],
    ]);
    a.close();
  });

  it('--override fetches a disallowed host, marks the rows overridden, and spaces the host by the override interval', async () => {
    const v = await hosts({ 'closed.test': site('User-agent: *\nDisallow: /\n'), 'other.test': site('User-agent: *\nDisallow: /\n') });
    const list = [...[1, 2, 3].map((i) => `${v.origin('closed.test')}/p${i}`), `${v.origin('other.test')}/x`].join('\n') + '\n';
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'o'), '--min-interval', '50', '--override', 'closed.test', '--override-interval', '400', ...resolveArgs(v)], { stdin: list });
    expect(r.code).toBe(0);
    const seen = pages(v.requests('closed.test'));
    expect(seen).toHaveLength(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.startedAt - seen[i - 1]!.endedAt!).toBeGreaterThanOrEqual(400);
    expect(pages(v.requests('other.test'))).toEqual([]);
    const a = openAudit(path.join(dir, 'o'));
    const rows = a.attempts({ kind: 'page' });
    a.close();
    expect(rows.filter((x) => x.host.startsWith('closed.test')).map((x) => [x.outcome, x.ruleLine])).toEqual(Array(3).fill(['overridden', 2]));
    expect(rows.filter((x) => x.host.startsWith('closed.test') && x.intervalMs !== null).every((x) => x.waitReason === 'override')).toBe(true);
    expect(rows.find((x) => x.host.startsWith('other.test'))!.outcome).toBe('blocked');
  });

  it('--json: one object a line on stdout (each attempt, then the summary); progress lines go to stderr', async () => {
    const v = await hosts({ 'j.test': site('User-agent: *\nDisallow: /no\n') });
    const list = ['/a', '/b', '/no', '/c', '/d'].map((p) => v.origin('j.test') + p).join('\n');
    const dir = tmp();
    const r = await runCli(['crawl', '-', '--user-agent', UA, '--out', path.join(dir, 'o'), '--min-interval', '150', '--json', '--progress-interval', '100', ...resolveArgs(v)], { stdin: list });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'attempt')).toHaveLength(5);
    const summary = lines.at(-1);
    expect(summary.type).toBe('summary');
    expect(summary.outcomes).toMatchObject({ fetched: 4, blocked: 1, error: 0 });
    expect(r.stderr).toMatch(/progress: \d+\/5 done, \d+ blocked, \d+ queued, \d+ in hand, \d+ hosts? waiting on (?:its|their) delay/);
  });
});
