// `crawl --purpose` reads each origin's /.well-known/tdmrep.json once per run; a read that fails
// (here: one that never answers, cut by --timeout) must be remembered for the origin too, with its
// meaning unchanged (unreachable: it reserves, fail closed). Asked again for every URL, a file that
// hangs cost each URL of its host a full --timeout. The CLI as a subprocess, a real loopback
// server, the real SQLite audit.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/index.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';

const f = crawlFixture('rg-tdmrep-failed-');
const UA = 'Mozilla/5.0 (compatible; UsageBot/1.0; +https://bot.example/about)';

describe('crawl --purpose: a TDMRep read that failed', () => {
  it('is not asked again for each URL of the origin: one request for three URLs, each reserved as unreachable', async () => {
    const v = await f.hosts({
      'hang.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(404).end();
        // Never answered: the server's close destroys the socket.
        if (req.url === '/.well-known/tdmrep.json') return;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('doc');
      },
    });
    const dir = f.tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, ['/a', '/b', '/c'].map((p) => v.origin('hang.test') + p).join('\n') + '\n');
    const out = path.join(dir, 'out');
    const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '50', '--timeout', '1000', '--purpose', 'ai-train', ...f.resolveArgs(v)], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(v.requests('hang.test', '/.well-known/tdmrep.json')).toHaveLength(1);
    // The failure's meaning is kept for the URLs after the first: reserved, never requested.
    for (const p of ['/a', '/b', '/c']) expect(v.requests('hang.test', p), p).toHaveLength(0);
    const audit = openAudit(out);
    const rows = audit.attempts();
    audit.close();
    const pages = rows.filter((a) => a.kind !== 'tdmrep');
    expect(pages.map((a) => new URL(a.url).pathname).sort()).toEqual(['/a', '/b', '/c']);
    for (const a of pages) {
      expect(a, a.url).toMatchObject({ outcome: 'blocked', reason: 'usage-reserved', final: true });
      expect(a.usage?.purposes['ai-train'].signals[0]?.value, a.url).toBe('unreachable (ETIMEDOUT)');
    }
    expect(rows.filter((a) => a.kind === 'tdmrep')).toHaveLength(1);
  }, 40_000);
});
