// `robots-gate crawl` as a subprocess against real loopback servers: politeness measured at the
// server, gating, audit completeness and integrity, policy changes mid-run, SIGKILL and --resume.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const UA = 'TestBot/1.0 (+https://example.test/bot)';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const { tmp, hosts, resolveArgs } = crawlFixture('rg-crawl-');

function urlFile(dir: string, urls: string[]): string {
  const f = path.join(dir, 'urls.txt');
  fs.writeFileSync(f, urls.join('\n') + '\n');
  return f;
}

const pages = (log: LoggedRequest[]) => log.filter((r) => r.path !== '/robots.txt');

/** Smallest gap at the server between one response's end and the next request's start. */
function minGap(reqs: LoggedRequest[]): number {
  let min = Infinity;
  for (let i = 1; i < reqs.length; i++) min = Math.min(min, reqs[i]!.startedAt - reqs[i - 1]!.endedAt!);
  return min;
}

describe('robots-gate crawl', () => {
  it('keeps every interval at the server, never sends a disallowed URL, and audits every attempt against the policy served', async () => {
    const robots: Record<string, string | null> = {
      'slow.test': 'User-agent: *\nCrawl-delay: 0.3\nDisallow: /private\n',
      'floor.test': 'User-agent: *\nDisallow: /no\n',
      'named.test': 'User-agent: TestBot\nCrawl-delay: 0.2\nDisallow: /x\n\nUser-agent: *\nDisallow: /\n',
      'gone.test': null,
    };
    const v = await hosts(Object.fromEntries(Object.entries(robots).map(([h, r]) => [h, site(r)])));
    const urls = [
      ...[1, 2, 3, 4, 5].map((i) => `${v.origin('slow.test')}/p${i}`),
      `${v.origin('slow.test')}/private/a`,
      `${v.origin('slow.test')}/private/b?q=1`,
      ...[1, 2, 3, 4, 5, 6].map((i) => `${v.origin('floor.test')}/p${i}`),
      `${v.origin('floor.test')}/no/thanks`,
      ...[1, 2, 3, 4].map((i) => `${v.origin('named.test')}/p${i}`),
      `${v.origin('named.test')}/x1`,
      ...[1, 2, 3].map((i) => `${v.origin('gone.test')}/p${i}`),
    ];
    const dir = tmp();
    const out = path.join(dir, 'out');
    const jsonl = path.join(dir, 'audit.jsonl');
    const r = await runCli(['crawl', urlFile(dir, urls), '--user-agent', UA, '--out', out, '--min-interval', '100', '--concurrency', '4', '--audit-jsonl', jsonl, ...resolveArgs(v)]);
    expect(r.stderr).not.toMatch(/Error|error:/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fetched\s+18/);
    expect(r.stdout).toMatch(/blocked\s+4/);

    // Intervals, measured at the server from the end of one response to the next request.
    const interval: Record<string, number> = { 'slow.test': 300, 'floor.test': 100, 'named.test': 200, 'gone.test': 100 };
    for (const [host, ms] of Object.entries(interval)) {
      const seen = pages(v.requests(host));
      expect(seen.length).toBeGreaterThan(2);
      expect(minGap(seen), host).toBeGreaterThanOrEqual(ms);
    }
    // Never a disallowed URL.
    const sent = pages(v.log).map((q) => `${q.host}${q.path}`);
    for (const bad of ['slow.test/private/a', 'slow.test/private/b?q=1', 'floor.test/no/thanks', 'named.test/x1']) expect(sent).not.toContain(bad);
    // Each robots.txt once.
    for (const host of Object.keys(robots)) expect(v.requests(host, '/robots.txt')).toHaveLength(1);

    const audit = openAudit(out);
    try {
      const rows = audit.attempts();
      // One final page row per URL, and every request the servers saw has its row.
      expect(new Set(rows.filter((a) => a.final && a.kind === 'page').map((a) => a.url))).toEqual(new Set(urls.map((u) => new URL(u).href)));
      expect(rows.filter((a) => a.status !== null).length).toBe(pages(v.log).length);
      for (const q of pages(v.log)) expect(rows.some((a) => a.url === `http://${q.host}:${v.port}${q.path}` && a.status === 200)).toBe(true);
      // Every stamp is the sha256 of a stored text that the server really served.
      for (const a of rows) {
        const host = a.host.replace(/:\d+$/, '');
        const served = robots[host];
        if (served === null) {
          expect(a.policySha256).toBeNull();
          expect(a.reason).toBe('unavailable');
          continue;
        }
        expect(a.policySha256).toBe(sha(served!));
        expect(audit.policy(a.policySha256!)?.body).toBe(served);
      }
      const blocked = audit.blocked();
      expect(blocked.map((b) => [new URL(b.url).pathname, b.ruleLine]).sort()).toEqual([
        ['/no/thanks', 2],
        ['/private/a', 3],
        ['/private/b', 3],
        ['/x1', 3],
      ]);
      // Documents saved with their hash.
      for (const a of rows.filter((x) => x.outcome === 'fetched')) {
        const body = fs.readFileSync(path.join(out, a.savedPath!));
        expect(createHash('sha256').update(body).digest('hex')).toBe(a.contentSha256);
        expect(a.headers?.['content-type']).toBe('text/html');
      }
      // The JSONL stream holds the same attempts.
      const lines = fs.readFileSync(jsonl, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.type === 'attempt').length).toBe(rows.length);
    } finally {
      audit.close();
    }
    const verify = await runCli(['audit', out, '--verify']);
    expect(verify.stdout).toMatch(/every stamp checks out/);
    expect(verify.code).toBe(0);
  });

  it('obeys a robots.txt changed mid-run from the next request, and records the change with both hashes', async () => {
    const v1 = 'User-agent: *\nDisallow: /never\n';
    const v2 = 'User-agent: *\nDisallow: /late\n';
    let served = 0;
    let switchedAt = Infinity;
    const v = await hosts({
      'chg.test': (req, res) => {
        if (req.url === '/robots.txt') {
          const body = served >= 3 ? v2 : v1;
          if (body === v2 && switchedAt === Infinity) switchedAt = performance.timeOrigin + performance.now();
          return void res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
        }
        res.once('finish', () => served++);
        res.writeHead(200, { 'content-type': 'text/html' }).end(`page ${req.url}`);
      },
    });
    const o = v.origin('chg.test');
    const urls = ['/p1', '/p2', '/p3', '/late1', '/p4', '/late2', '/late3', '/p5'].map((p) => o + p);
    const dir = tmp();
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', urlFile(dir, urls), '--user-agent', UA, '--out', out, '--min-interval', '150', '--recheck-after', '100', ...resolveArgs(v)]);
    expect(r.code).toBe(0);
    // Nothing under /late reached the server once it served the new file (nor before: the
    // first /late came after the switch).
    const late = v.requests('chg.test').filter((q) => q.path.startsWith('/late'));
    expect(late.filter((q) => q.startedAt >= switchedAt)).toEqual([]);
    expect(late).toEqual([]);
    const audit = openAudit(out);
    try {
      const changes = audit.policyChanges();
      expect(changes.map((c) => [c.oldSha256, c.newSha256])).toEqual([[sha(v1), sha(v2)]]);
      const rows = audit.attempts({ kind: 'page' });
      const stamp = (p: string) => rows.find((a) => a.url === o + p)!;
      for (const p of ['/p1', '/p2', '/p3']) expect(stamp(p).policySha256).toBe(sha(v1));
      for (const p of ['/late1', '/late2', '/late3']) expect([stamp(p).outcome, stamp(p).policySha256, stamp(p).ruleLine]).toEqual(['blocked', sha(v2), 2]);
      for (const p of ['/p4', '/p5']) expect([stamp(p).outcome, stamp(p).policySha256]).toEqual(['fetched', sha(v2)]);
      // Rows already written keep their old stamp; both texts are stored.
      expect(audit.policy(sha(v1))?.body).toBe(v1);
      expect(audit.policy(sha(v2))?.body).toBe(v2);
      expect(changes[0]!.at <= stamp('/late1').startedAt).toBe(true);
    } finally {
      audit.close();
    }
  });

  it('SIGKILL mid-run, then --resume: no row lost, no settled URL fetched again', async () => {
    const names = ['k1.test', 'k2.test', 'k3.test'];
    const v = await hosts(Object.fromEntries(names.map((h) => [h, site('User-agent: *\nAllow: /\n')])));
    const urls = names.flatMap((h) => Array.from({ length: 10 }, (_, i) => `${v.origin(h)}/doc${i}`));
    const dir = tmp();
    const out = path.join(dir, 'out');
    const list = urlFile(dir, urls);
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '100', '--concurrency', '3', ...resolveArgs(v)];
    let killedPid = 0;
    const first = await runCli(args, {
      onStart: (child) => {
        killedPid = child.pid!;
        const poll = setInterval(() => {
          if (pages(v.log).length >= 12) {
            clearInterval(poll);
            child.kill('SIGKILL');
          }
        }, 5);
        child.once('close', () => clearInterval(poll));
      },
    });
    expect(first.signal).toBe('SIGKILL');
    const before = openAudit(out);
    const rowsBefore = before.attempts();
    const settled = before.doneUrls();
    const run1 = before.runs()[0]!;
    before.close();
    expect(run1.status).toBe('unfinished');
    expect(settled.size).toBeGreaterThanOrEqual(9);
    expect(settled.size).toBeLessThan(urls.length);

    // What a kill mid-write leaves beside a document (the writer's temporary name), and one of a
    // process still running (this one: another crawl into the same --out), which must be kept.
    const files = () => fs.readdirSync(out, { recursive: true, encoding: 'utf8' });
    const docDir = path.dirname(path.join(out, files().find((f) => f.includes('doc'))!));
    // The kill itself may have cut a write short: its temporary is swept too.
    const killedParts = () => files().filter((f) => path.basename(f).startsWith(`.~rg-${killedPid}-`));
    const leftByKill = killedParts().length;
    const stale = path.join(docDir, `.~rg-${killedPid}-0123456789abcdef-7.part`);
    const live = path.join(docDir, `.~rg-${process.pid}-0123456789abcdef-7.part`);
    fs.writeFileSync(stale, 'half a docu');
    fs.writeFileSync(live, 'being written');

    const second = await runCli([...args, '--resume']);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/resuming: \d+ URLs? already settled/);
    const removed = 1 + leftByKill;
    expect(second.stderr).toContain(`removed ${removed} partly written document${removed === 1 ? '' : 's'} (.~rg-….part)`);
    expect(fs.existsSync(stale)).toBe(false);
    expect(killedParts()).toEqual([]);
    expect(fs.existsSync(live)).toBe(true);
    fs.rmSync(live);
    const after = openAudit(out);
    try {
      // Every row of the killed run is still there, unchanged.
      const run1Rows = after.attempts({ runId: run1.runId });
      expect(run1Rows).toEqual(rowsBefore);
      const runs = after.runs();
      expect(runs[1]!.resumeOf).toBe(run1.runId);
      // Every URL settled exactly once over both runs.
      const finals = after.attempts().filter((a) => a.final && a.kind === 'page');
      expect(finals.map((a) => a.url).sort()).toEqual([...urls].sort());
    } finally {
      after.close();
    }
    // No settled URL went to a server again; at most the requests in flight at the kill did.
    const count = new Map<string, number>();
    for (const q of pages(v.log)) {
      const u = `http://${q.host}:${v.port}${q.path}`;
      count.set(u, (count.get(u) ?? 0) + 1);
    }
    for (const u of settled) expect(count.get(u), u).toBe(1);
    for (const u of urls) expect(count.get(u) ?? 0).toBeGreaterThanOrEqual(1);
    expect([...count.values()].filter((n) => n > 1).length).toBeLessThanOrEqual(3);
  });

  it('--resume schedules a redirect target that a kill left unfetched', async () => {
    let v!: VirtualHosts;
    v = await hosts({
      'src.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
        res.writeHead(301, { location: `${v.origin('dst.test')}/target` }).end();
      },
      // A slow robots.txt keeps the target waiting long enough to kill the crawl before it.
      'dst.test': (req, res) => {
        if (req.url === '/robots.txt') return void setTimeout(() => res.end('User-agent: *\nAllow: /\n'), 1500);
        res.end('target page');
      },
    });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const list = urlFile(dir, [`${v.origin('src.test')}/moved`]);
    const args = ['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '50', ...resolveArgs(v)];
    const first = await runCli(args, {
      onStart: (child) => {
        const poll = setInterval(() => {
          if (v.requests('dst.test', '/robots.txt').length > 0) {
            clearInterval(poll);
            setTimeout(() => child.kill('SIGKILL'), 100);
          }
        }, 5);
        child.once('close', () => clearInterval(poll));
      },
    });
    expect(first.signal).toBe('SIGKILL');
    expect(v.requests('dst.test', '/target')).toEqual([]);
    const second = await runCli([...args, '--resume']);
    expect(second.code).toBe(0);
    expect(v.requests('dst.test', '/target')).toHaveLength(1);
    expect(v.requests('src.test', '/moved')).toHaveLength(1);
    const a = openAudit(out);
    const target = a.attempts({ url: `${v.origin('dst.test')}/target` });
    a.close();
    expect(target.map((x) => [x.kind, x.outcome, x.status, x.parentUrl])).toEqual([['redirect', 'fetched', 200, `${v.origin('src.test')}/moved`]]);
  });

  it('keeps documents of hostile URLs inside --out', async () => {
    const v = await hosts({ 'evil.test': site('User-agent: *\nAllow: /\n') });
    const o = v.origin('evil.test');
    const hostile = [
      `${o}/../../etc/passwd`,
      `${o}/%2e%2e/%2e%2e/%2e%2e/escape1`,
      `${o}/%2E%2E%2F%2E%2E%2Fescape2`,
      `${o}/a/..%2f..%2f..%2fescape3`,
      `${o}/nul%00byte`,
      `${o}/${'L'.repeat(3000)}`,
      `${o}/${'d/'.repeat(100)}deep`,
    ];
    const dir = tmp();
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', urlFile(dir, hostile), '--user-agent', UA, '--out', out, '--min-interval', '0', ...resolveArgs(v)]);
    expect(r.code).toBe(0);
    // Nothing appeared beside out/ (the list file is ours), and every saved path is inside.
    expect(fs.readdirSync(dir).sort()).toEqual(['out', 'urls.txt']);
    const audit = openAudit(out);
    const fetched = audit.attempts({ outcome: 'fetched' });
    audit.close();
    expect(fetched.length).toBe(hostile.length);
    const root = fs.realpathSync(out) + path.sep;
    for (const a of fetched) {
      const full = fs.realpathSync(path.join(out, a.savedPath!));
      expect(full.startsWith(root)).toBe(true);
    }
  });
});
