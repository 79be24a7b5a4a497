// A redirect chain interrupted and resumed stops at the same limit as one run would: the resumed
// run counts a pending target's hops from the audit's redirect rows (it started again at 1, so
// each --resume allowed 5 more hops).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { interruptWhen, runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-resume-depth-');

describe('crawl --resume in a redirect chain', () => {
  it('keeps the redirect limit of 5 across the interrupt', async () => {
    const v = await hosts({
      'chain.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        const n = Number(/^\/h(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
        if (Number.isInteger(n)) return void res.writeHead(302, { location: `/h${n + 1}` }).end();
        res.writeHead(404).end();
      },
    });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, `${v.origin('chain.test')}/h0\n`);
    const args = ['crawl', list, '--user-agent', 'T', '--out', path.join(dir, 'out'), '--min-interval', '300', ...resolveArgs(v)];
    const hops = () => v.requests('chain.test').filter((r) => r.path !== '/robots.txt' && r.endedAt !== undefined);
    const first = await runCli(args, { onStart: interruptWhen(() => hops().length >= 3) });
    expect(first.code, first.stderr).toBe(130);
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    const fetched = new Set(hops().map((r) => r.path));
    expect([...fetched].sort()).toEqual(['/h0', '/h1', '/h2', '/h3', '/h4', '/h5']);
  });

  it('a loop interrupted mid-way is not asked its start again (found by a tester)', async () => {
    const v = await hosts({
      'loop.test': (req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        if (req.url === '/loop1') return void res.writeHead(301, { location: '/loop2' }).end();
        if (req.url === '/loop2') return void res.writeHead(301, { location: '/loop1' }).end();
        res.writeHead(404).end();
      },
    });
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, `${v.origin('loop.test')}/loop1\n`);
    const args = ['crawl', list, '--user-agent', 'T', '--out', path.join(dir, 'out'), '--min-interval', '1500', ...resolveArgs(v)];
    const asked = (p: string) => v.requests('loop.test', p).length;
    // Interrupted once /loop1 has answered: /loop2 is still waiting its turn.
    const first = await runCli(args, { onStart: interruptWhen(() => v.requests('loop.test', '/loop1').some((r) => r.endedAt !== undefined)) });
    expect(first.code, first.stderr).toBe(130);
    expect(asked('/loop2')).toBe(0);
    const second = await runCli([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    expect(asked('/loop2')).toBe(1);
    expect(asked('/loop1')).toBe(1);
  });
});
