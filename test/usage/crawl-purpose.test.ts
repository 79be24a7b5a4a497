// `robots-gate crawl --purpose ai-train` over sites that reserve training by each mechanism: what
// robots.txt or TDMRep reserves is never requested, what a response reserves is fetched and not
// kept, and every row says which signal decided. Without --purpose the same verdicts are recorded
// and nothing else changes. The CLI as a subprocess, real loopback servers, the real SQLite audit.
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/index.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import type { HostHandler } from '../helpers/hosts.js';

const f = crawlFixture('rg-usage-');
const UA = 'Mozilla/5.0 (compatible; UsageBot/1.0; +https://bot.example/about)';

function page(robots: string | null, headers: http.OutgoingHttpHeaders = {}, html = '<html><head><title>t</title></head><body>hi</body></html>', tdmrep?: string): HostHandler {
  return (req, res) => {
    if (req.url === '/robots.txt') {
      if (robots === null) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    }
    if (req.url === '/.well-known/tdmrep.json') {
      if (tdmrep === undefined) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(tdmrep);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(html);
  };
}

const SITES: Record<string, HostHandler> = {
  'robots.test': page('User-agent: *\nContent-Usage: train-ai=n\n'),
  'header.test': page(null, { 'content-usage': 'train-ai=n' }),
  'xrobots.test': page(null, { 'x-robots-tag': 'usagebot: noai' }),
  'meta.test': page(null, {}, '<html><head><meta name="robots" content="noai"></head><body>x</body></html>'),
  'tdm.test': page(null, {}, undefined, JSON.stringify([{ location: '/*', 'tdm-reservation': 1, 'tdm-policy': 'https://tdm.test/policy.json' }])),
  'open.test': page('User-agent: *\nContent-Signal: ai-train=yes\n'),
};

async function crawl(extra: string[]) {
  const v = await f.hosts(SITES);
  const dir = f.tmp();
  const list = path.join(dir, 'urls.txt');
  fs.writeFileSync(list, Object.keys(SITES).map((h) => `${v.origin(h)}/doc`).join('\n') + '\n');
  const out = path.join(dir, 'out');
  const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '50', ...f.resolveArgs(v), ...extra], { timeoutMs: 30_000 });
  const audit = openAudit(out);
  const rows = audit.attempts();
  audit.close();
  const row = (host: string) => rows.find((x) => x.host.startsWith(host) && x.kind !== 'tdmrep')!;
  return { v, r, rows, row, out };
}

describe('crawl --purpose ai-train', () => {
  it('neither fetches what robots.txt or TDMRep reserves nor keeps what a response reserves; each row names the signal', async () => {
    const { v, r, row, rows } = await crawl(['--purpose', 'ai-train']);
    expect(r.stderr).not.toMatch(/Error/);
    // robots.txt: never requested.
    expect(v.requests('robots.test', '/doc')).toHaveLength(0);
    expect(row('robots.test')).toMatchObject({ outcome: 'blocked', reason: 'usage-reserved', savedPath: null });
    expect(row('robots.test').usage?.purposes['ai-train'].signals[0]).toMatchObject({ kind: 'content-usage', source: 'robots.txt', line: 2 });
    // TDMRep file: read once (a row of kind tdmrep), the document never requested.
    expect(v.requests('tdm.test', '/doc')).toHaveLength(0);
    expect(v.requests('tdm.test', '/.well-known/tdmrep.json')).toHaveLength(1);
    expect(rows.filter((x) => x.kind === 'tdmrep' && x.host.startsWith('tdm.test'))).toHaveLength(1);
    expect(row('tdm.test')).toMatchObject({ outcome: 'blocked', reason: 'usage-reserved' });
    expect(row('tdm.test').usage?.purposes['ai-train'].signals[0]).toMatchObject({ kind: 'tdmrep-file', source: 'tdmrep.json' });
    // Responses: fetched, not kept.
    for (const [host, kind] of [['header.test', 'content-usage'], ['xrobots.test', 'x-robots-tag'], ['meta.test', 'meta-robots']] as const) {
      expect(v.requests(host, '/doc'), host).toHaveLength(1);
      expect(row(host), host).toMatchObject({ outcome: 'fetched', reason: 'usage-reserved', savedPath: null, contentSha256: null });
      expect(row(host).usage?.purposes['ai-train'].signals.map((s) => s.kind), host).toEqual([kind]);
    }
    // Nothing reserved: kept, and the site's yes is on the row.
    expect(row('open.test')).toMatchObject({ outcome: 'fetched' });
    expect(row('open.test').savedPath).not.toBeNull();
    expect(row('open.test').usage?.purposes['ai-train'].verdict).toBe('allowed');
    // The robots.txt request, the TDMRep request and the document keep the host's interval.
    const tdm = v.requests('tdm.test');
    for (let i = 1; i < tdm.length; i++) expect(tdm[i]!.startedAt - tdm[i - 1]!.endedAt!).toBeGreaterThanOrEqual(45);
  });

  it('without --purpose, every document is fetched and kept, and the same verdicts are recorded', async () => {
    const { v, row, rows } = await crawl([]);
    for (const host of Object.keys(SITES)) {
      expect(v.requests(host, '/doc'), host).toHaveLength(1);
      expect(row(host).savedPath, host).not.toBeNull();
    }
    // No TDMRep request without a purpose: nothing changes in what is fetched.
    expect(rows.some((x) => x.kind === 'tdmrep')).toBe(false);
    for (const host of ['robots.test', 'header.test', 'xrobots.test', 'meta.test']) {
      expect(row(host).usage?.purposes['ai-train'].verdict, host).toBe('reserved');
    }
    expect(row('open.test').usage?.purposes['ai-train'].verdict).toBe('allowed');
  });

  it('audit --usage lists documents by verdict; --export jsonl gives each saved document with its stamp and verdict', async () => {
    const { out } = await crawl(['--purpose', 'ai-train']);
    const usage = await runCli(['audit', out, '--usage']);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^ai-train: 5 reserved, 1 allowed, 0 unknown$/m);
    // A response that reserves: fetched, not kept; what robots.txt or TDMRep reserved: never requested.
    expect(usage.stdout).toMatch(/reserved {2}http:\/\/xrobots\.test:\d+\/doc {2}fetched, not kept {2}by x-robots-tag "usagebot: noai"/);
    expect(usage.stdout).toMatch(/reserved {2}http:\/\/robots\.test:\d+\/doc {2}not requested {2}by content-usage line 2/);
    expect(usage.stdout).toMatch(/reserved {2}http:\/\/tdm\.test:\d+\/doc {2}not requested {2}by tdmrep-file/);
    const usageJson = (await runCli(['audit', out, '--usage', '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(usageJson.find((x) => x.url.includes('robots.test'))).toMatchObject({ outcome: 'blocked', document: 'not requested' });
    expect(usageJson.find((x) => x.url.includes('header.test'))).toMatchObject({ outcome: 'fetched', document: 'fetched, not kept' });
    expect(usageJson.find((x) => x.url.includes('open.test'))).toMatchObject({ document: 'kept' });
    const exp = await runCli(['audit', out, '--export', 'jsonl']);
    expect(exp.code).toBe(0);
    const lines = exp.stdout.trim().split('\n').map((l) => JSON.parse(l));
    // Only what was kept: open.test's document.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ url: expect.stringContaining('open.test'), contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(lines[0].access.policySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(lines[0].usage.purposes['ai-train'].verdict).toBe('allowed');
    expect((await runCli(['audit', out, '--export', 'csv'])).code).toBe(2);
    const html = path.join(out, 'report.html');
    expect((await runCli(['report', out, '--html', html])).code).toBe(0);
    const page = fs.readFileSync(html, 'utf8');
    expect(page).toContain('<h3>Reserved for ai-train: 5</h3>');
    expect(page).toMatch(/xrobots\.test:\d+\/doc<\/td><td>fetched, not kept<\/td><td>x-robots-tag: usagebot: noai/);
    expect(page).toMatch(/robots\.test:\d+\/doc<\/td><td>not requested<\/td>/);
  });

  it('a signal that changes mid-run: each row keeps the one in force at its fetch', async () => {
    let robots = 'User-agent: *\nContent-Usage: train-ai=y\n';
    const v = await f.hosts({
      'flip.test': (req, res) => {
        if (req.url === '/robots.txt') {
          res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
          return;
        }
        // The site changes its mind once /a has been served: /b is fetched under the new file.
        if (req.url === '/a') robots = 'User-agent: *\nContent-Usage: train-ai=n\n';
        res.writeHead(200, { 'content-type': 'text/plain' }).end('doc');
      },
    });
    const dir = f.tmp();
    fs.writeFileSync(path.join(dir, 'u.txt'), `${v.origin('flip.test')}/a\n${v.origin('flip.test')}/b\n`);
    const outDir = path.join(dir, 'out');
    const r = await runCli(['crawl', path.join(dir, 'u.txt'), '--user-agent', UA, '--out', outDir, '--min-interval', '300', '--recheck-after', '100', ...f.resolveArgs(v)]);
    expect(r.code, r.stderr).toBe(0);
    const audit = openAudit(outDir);
    const rows = audit.attempts().filter((a) => a.kind === 'page');
    const policies = new Map(audit.policies().map((p) => [p.sha256, p.body]));
    audit.close();
    expect(rows.map((a) => a.usage?.purposes['ai-train'].verdict)).toEqual(['allowed', 'reserved']);
    for (const a of rows) expect(policies.get(a.policySha256!)).toContain(a.usage!.signals[0]!.value);
  });

  it('the TDMRep file is read even where robots.txt reserves the purpose, and any reservation wins over a path that allows', async () => {
    const tdm = JSON.stringify([{ location: '/', 'tdm-reservation': 1 }]);
    let tdmStatus = 503;
    const v = await f.hosts({
      'both.test': page('User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n', {}, undefined, tdm),
      'flaky.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(404).end();
        if (req.url === '/.well-known/tdmrep.json') {
          const status = tdmStatus;
          tdmStatus = 404;
          return void res.writeHead(status).end();
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('doc');
      },
      'late.test': page(null, {}, `<html><head><script>${'x'.repeat(1_200_000)}</script><meta name="robots" content="noai"></head><body>b</body></html>`),
    });
    const dir = f.tmp();
    const list = path.join(dir, 'u.txt');
    fs.writeFileSync(list, [`${v.origin('both.test')}/open/doc`, `${v.origin('flaky.test')}/a`, `${v.origin('flaky.test')}/b`, `${v.origin('late.test')}/doc`].join('\n') + '\n');
    const outDir = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', outDir, '--min-interval', '50', '--purpose', 'ai-train', ...f.resolveArgs(v)]);
    expect(r.stderr).not.toMatch(/Error/);
    const audit = openAudit(outDir);
    const rows = audit.attempts();
    audit.close();
    // The file was fetched (a policy file is not content), and its reservation of / wins over /open/ train-ai=y.
    expect(rows.find((a) => a.kind === 'tdmrep' && a.host.startsWith('both.test'))).toMatchObject({ outcome: 'fetched', status: 200 });
    expect(v.requests('both.test', '/open/doc')).toHaveLength(0);
    expect(rows.find((a) => a.url.endsWith('/open/doc'))).toMatchObject({ outcome: 'blocked', reason: 'usage-reserved', ruleLine: null });
    // A 503 on tdmrep.json reserves (fail closed), and stands for the origin's next URL: it is
    // asked again only once due (a minute on), not for each URL.
    for (const p of ['/a', '/b']) {
      expect(v.requests('flaky.test', p)).toHaveLength(0);
      expect(rows.find((a) => a.url.endsWith('flaky.test:' + v.port + p))?.usage?.purposes['ai-train'].signals[0]?.value).toBe('unreachable (503)');
    }
    expect(v.requests('flaky.test', '/.well-known/tdmrep.json')).toHaveLength(1);
    // A meta tag after a megabyte of head still counts.
    expect(rows.find((a) => a.host.startsWith('late.test') && a.kind === 'page')).toMatchObject({ reason: 'usage-reserved', savedPath: null });
  });

  it('a TDMRep file behind a redirect reserves: each hop is its own spaced request, and the document is never requested', async () => {
    const reserve = JSON.stringify([{ location: '/*', 'tdm-reservation': 1 }]);
    const v = await f.hosts({
      'moved.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(404).end();
        if (req.url === '/.well-known/tdmrep.json') return void res.writeHead(301, { location: '/tdm/policy.json' }).end();
        if (req.url === '/tdm/policy.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(reserve);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>doc</p>');
      },
    });
    const dir = f.tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, `${v.origin('moved.test')}/doc\n`);
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '200', '--purpose', 'ai-train', ...f.resolveArgs(v)], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const log = v.requests('moved.test');
    expect(log.map((x) => x.path)).toEqual(['/robots.txt', '/.well-known/tdmrep.json', '/tdm/policy.json']);
    expect(log[2]!.startedAt - log[1]!.endedAt!).toBeGreaterThanOrEqual(195);
    const audit = openAudit(out);
    const rows = audit.attempts();
    audit.close();
    expect(rows.filter((x) => x.kind === 'tdmrep').map((x) => new URL(x.url).pathname)).toEqual(['/.well-known/tdmrep.json', '/tdm/policy.json']);
    expect(rows.find((x) => x.kind === 'page')).toMatchObject({ outcome: 'blocked', reason: 'usage-reserved' });
  });

  it('every URL robots.txt reserves carries the verdict in its row, not only the first of its host', async () => {
    const v = await f.hosts({ 'robots.test': SITES['robots.test']! });
    const dir = f.tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, [1, 2, 3, 4].map((i) => `${v.origin('robots.test')}/d${i}`).join('\n') + '\n');
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '50', '--purpose', 'ai-train', ...f.resolveArgs(v)], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const audit = openAudit(out);
    const rows = audit.attempts().filter((x) => x.kind === 'page');
    audit.close();
    expect(rows.map((x) => [x.outcome, x.reason])).toEqual([1, 2, 3, 4].map(() => ['blocked', 'usage-reserved']));
    for (const x of rows) expect(x.usage, x.url).not.toBeNull();
    const usage = await runCli(['audit', out, '--usage']);
    expect(usage.stdout).toMatch(/ai-train: 4 reserved/);
  });

  it('audit --blocked names the usage line that reserved, not the access rule', async () => {
    const { out } = await crawl(['--purpose', 'ai-train']);
    const r = await runCli(['audit', out, '--blocked', '--json']);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.find((x) => x.host.startsWith('robots.test'))).toMatchObject({ reason: 'usage-reserved', ruleLine: 2, rulePattern: 'Content-Usage: train-ai=n' });
  });

  it("audit --host does not call a TDMRep read 'not the URL's last' (it settles no URL of the run)", async () => {
    const { v, out } = await crawl(['--purpose', 'ai-train']);
    const r = await runCli(['audit', out, '--host', new URL(v.origin('tdm.test')).host]);
    expect(r.stdout).toMatch(/tdmrep\.json \[tdmrep\]/);
    expect(r.stdout).not.toMatch(/not the URL's last/);
  });

  it('refuses an unknown purpose with exit 2', async () => {
    const dir = f.tmp();
    fs.writeFileSync(path.join(dir, 'u.txt'), 'http://a.test/\n');
    const r = await runCli(['crawl', path.join(dir, 'u.txt'), '--user-agent', 'Bot/1.0', '--out', path.join(dir, 'o'), '--purpose', 'training']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--purpose must be one of search, ai-input, ai-train/);
  });
});
