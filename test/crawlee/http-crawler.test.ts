// robots-gate/crawlee with real Crawlee HTTP crawlers (CheerioCrawler, BasicCrawler's
// sendRequest) against real loopback servers: the servers' logs say what was sent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BasicCrawler, CheerioCrawler, Configuration, log, LogLevel } from 'crawlee';
import { RobotsGate } from '../../src/gate/index.js';
import { SqliteAuditSink, openAudit } from '../../src/audit/index.js';
import { gateCrawler, type RobotsSkip } from '../../src/crawlee/index.js';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const UA = 'CrawleeGateBot/1.0 (+https://example.test/bot)';
const H = '127.0.0.1';

log.setLevel(LogLevel.ERROR);
const config = () => new Configuration({ persistStorage: false, storageClientOptions: { persistStorage: false }, purgeOnStart: true });

let a: VirtualHosts; // Disallow: /private/ ; /go-private redirects into it, /go-public out of it
let down: VirtualHosts; // robots.txt 503: unreachable, nothing allowed (RFC 9309 §2.3.1.4)
let gone: VirtualHosts; // robots.txt 404: unavailable, everything allowed (§2.3.1.3)
beforeAll(async () => {
  a = await startVirtualHosts({
    [H]: (req, res) => {
      const p = req.url ?? '/';
      if (p === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      if (p.startsWith('/go-private')) return void res.writeHead(302, { location: '/private/hop.html' }).end();
      if (p === '/go-public') return void res.writeHead(301, { location: `${gone.origin(H)}/landed.html` }).end();
      if (p === '/links.html') {
        const links = ['/public/linked.html', '/private/linked.html'].map((l) => `<a href="${l}">x</a>`).join('');
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>${links}`);
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${p}</title>`);
    },
  });
  down = await startVirtualHosts({ [H]: (req, res) => void res.writeHead(503).end('down') });
  gone = await startVirtualHosts({ [H]: site(null) });
});
afterAll(async () => {
  await Promise.all([a?.close(), down?.close(), gone?.close()]);
});

const paths = (s: VirtualHosts) => s.requests(H).map((r) => r.path);

describe('CheerioCrawler gated by robots-gate', () => {
  test('disallowed, unreachable and redirected-into-disallowed URLs never reach a server; each skip names its decision', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-crawlee-'));
    const gate = new RobotsGate({ userAgent: UA });
    const audit = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    const handled: string[] = [];
    const skipped: RobotsSkip[] = [];
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: 10,
        maxRequestRetries: 3,
        requestHandler: async ({ request, enqueueLinks }) => {
          handled.push(request.loadedUrl ?? request.url);
          await enqueueLinks({ strategy: 'same-origin' });
        },
        onSkippedRequest: async (s) => void skipped.push(s as RobotsSkip),
      },
      config(),
    );
    const gated = gateCrawler(crawler, gate, { minIntervalMs: 0, audit });
    const u = (s: VirtualHosts, p: string) => `${s.origin(H)}${p}`;
    await crawler.run([
      u(a, '/public/one.html'),
      u(a, '/private/secret.html'),
      u(down, '/anything.html'),
      u(a, '/go-private'),
      u(a, '/go-public'),
      u(a, '/links.html'),
    ]);
    audit.close();

    // What the servers saw: no disallowed path, nothing but robots.txt on the unreachable origin,
    // and one robots.txt per origin however many requests wanted it at once.
    expect(paths(a).filter((p) => p.startsWith('/private/'))).toEqual([]);
    expect(paths(down)).toEqual(['/robots.txt']);
    expect(paths(a).filter((p) => p === '/robots.txt')).toHaveLength(1);
    // The redirect into /private/ was sent once (no retries) and stopped at the hop.
    expect(paths(a).filter((p) => p === '/go-private')).toHaveLength(1);
    // An allowed redirect to another origin is followed, and that origin's robots.txt asked first.
    expect(paths(gone)).toEqual(['/robots.txt', '/landed.html']);
    expect(handled.sort()).toEqual([u(gone, '/landed.html'), u(a, '/links.html'), u(a, '/public/linked.html'), u(a, '/public/one.html')].sort());

    const byUrl = new Map(skipped.map((s) => [s.url, s]));
    expect(byUrl.get(u(a, '/private/secret.html'))).toMatchObject({ reason: 'robotsTxt', decision: { reason: 'disallowed-by-rule', rule: { line: 2, pattern: '/private/' } } });
    expect(byUrl.get(u(a, '/private/secret.html'))?.decision?.policy.robotsUrl).toBe(u(a, '/robots.txt'));
    expect(byUrl.get(u(down, '/anything.html'))).toMatchObject({ reason: 'robotsTxt', decision: { reason: 'unreachable', policy: { status: 503 } } });
    expect(byUrl.get(u(a, '/go-private'))).toMatchObject({ reason: 'robotsTxt', decision: { url: u(a, '/private/hop.html'), reason: 'disallowed-by-rule' } });
    // enqueueLinks of a disallowed link on a known origin: refused up front, with its decision.
    expect(byUrl.get(u(a, '/private/linked.html'))).toMatchObject({ reason: 'robotsTxt', decision: { rule: { line: 2 } } });
    expect(gated.decisionOf(u(a, '/private/secret.html'))?.allowed).toBe(false);

    // The audit has a row per attempt, stamped, and `robots-gate audit --verify` finds it clean.
    const reader = openAudit(path.join(dir, 'audit.sqlite'));
    const rows = reader.attempts({});
    reader.close();
    const row = (url: string) => rows.filter((r) => r.url === url);
    expect(row(u(a, '/private/secret.html'))).toMatchObject([{ outcome: 'blocked', ruleLine: 2, policyStatus: 200 }]);
    expect(row(u(a, '/go-private'))).toMatchObject([{ outcome: 'fetched', status: 302, final: false }]);
    expect(row(u(a, '/private/hop.html'))).toMatchObject([{ outcome: 'blocked', kind: 'redirect', parentUrl: u(a, '/go-private') }]);
    expect(row(u(a, '/public/one.html'))).toMatchObject([{ outcome: 'fetched', status: 200 }]);
    expect(row(u(down, '/anything.html'))).toMatchObject([{ outcome: 'blocked', reason: 'unreachable' }]);
    // Refused by enqueueLinks before it was queued: recorded too, once.
    expect(row(u(a, '/private/linked.html'))).toMatchObject([{ outcome: 'blocked', reason: 'disallowed-by-rule', ruleLine: 2 }]);
    assertBuilt();
    const verify = await runCli(['audit', dir, '--verify', '--json']);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'verify', problems: [] });
    const report = await runCli(['report', dir]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain(`127.0.0.1:${a.port}`);
    await gate.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("Crawl-delay holds at concurrency 10 (gaps measured at the server), spaced by the gate's own limiter and terms", async () => {
    const slow = await startVirtualHosts({ [H]: site('User-agent: *\nCrawl-delay: 0.4\n') });
    const other = await startVirtualHosts({ [H]: site('User-agent: *\nAllow: /\n') });
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
    try {
      const crawler = new CheerioCrawler({ maxConcurrency: 10, minConcurrency: 10, requestHandler: async () => {} }, config());
      gateCrawler(crawler, gate);
      const urls = [...Array(6).keys()].flatMap((i) => [`${slow.origin(H)}/p${i}.html`, `${other.origin(H)}/p${i}.html`]);
      await crawler.run(urls);
      const pages = slow.requests(H).filter((r) => r.path !== '/robots.txt');
      expect(pages).toHaveLength(6);
      for (let i = 1; i < pages.length; i++) {
        // From the end of one response to the start of the next: at least the Crawl-delay.
        expect(pages[i]!.startedAt - pages[i - 1]!.endedAt!).toBeGreaterThanOrEqual(400 - 2);
      }
      // The other host was not held to that host's delay: all six went out meanwhile.
      const others = other.requests(H).filter((r) => r.path !== '/robots.txt');
      expect(others).toHaveLength(6);
      expect(others.at(-1)!.startedAt).toBeLessThan(pages.at(-1)!.startedAt);
    } finally {
      await gate.close();
      await Promise.all([slow.close(), other.close()]);
    }
  });
});

describe("BasicCrawler's sendRequest", () => {
  test('each hop is decided against its own origin; a disallowed hop stops the chain and skips the request', async () => {
    const gate = new RobotsGate({ userAgent: UA });
    const skipped: RobotsSkip[] = [];
    const bodies: string[] = [];
    const crawler = new BasicCrawler(
      {
        requestHandler: async ({ request, sendRequest }) => {
          const res = await sendRequest({ url: request.url });
          bodies.push(String(res.body));
        },
        onSkippedRequest: async (s) => void skipped.push(s as RobotsSkip),
      },
      config(),
    );
    gateCrawler(crawler, gate, { minIntervalMs: 0 });
    const before = paths(a).length;
    await crawler.run([`${a.origin(H)}/go-private?basic`, `${gone.origin(H)}/basic.html`]);
    // The hop target is /private/hop.html: never requested.
    expect(paths(a).slice(before)).not.toContain('/private/hop.html');
    expect(skipped.map((s) => s.decision?.url)).toEqual([`${a.origin(H)}/private/hop.html`]);
    expect(bodies).toHaveLength(1);
    await gate.close();
  });
});

describe('addRequests', () => {
  test('refuses a disallowed URL up front only when its robots.txt is known; an unknown origin is not fetched at enqueue', async () => {
    const fresh = await startVirtualHosts({ [H]: site('User-agent: *\nDisallow: /private/\n') });
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 0 });
    try {
      const skipped: RobotsSkip[] = [];
      const crawler = new BasicCrawler({ requestHandler: async () => {}, onSkippedRequest: async (s) => void skipped.push(s as RobotsSkip) }, config());
      gateCrawler(crawler, gate);
      await gate.check(`${a.origin(H)}/`); // a's robots.txt is known from here on
      const known = `${a.origin(H)}/private/enqueued.html`;
      const unknown = `${fresh.origin(H)}/private/enqueued.html`;
      await crawler.addRequests([known, unknown], { waitForAllRequestsToBeAdded: true });
      expect(skipped.map((s) => s.url)).toEqual([known]);
      expect(skipped[0]?.decision?.rule?.line).toBe(2);
      expect(fresh.log).toEqual([]); // nothing fetched at enqueue time
      await crawler.run();
      expect(skipped.map((s) => s.url)).toEqual([known, unknown]);
      expect(fresh.requests(H).map((r) => r.path)).toEqual(['/robots.txt']);
    } finally {
      await gate.close();
      await fresh.close();
    }
  });
});
