// Ctrl-C while the fleet's Redis is down: the worker must stop (exit 130) rather than wait for
// Redis for ever, with every row it wrote intact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { startOwnRedis, type OwnRedis } from '../stores/own-redis.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

let redis: OwnRedis;
let v: VirtualHosts;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-outage-int-'));
beforeAll(async () => {
  assertBuilt();
  redis = await startOwnRedis();
  v = await startVirtualHosts({ 'a.test': site('User-agent: *\nAllow: /\n') });
});
afterAll(async () => {
  await redis.stop();
  await v.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SIGINT while Redis is down', () => {
  it('exits 130 promptly; every request the server saw has its row', async () => {
    const out = path.join(dir, 'out');
    const list = Array.from({ length: 60 }, (_, i) => `${v.origin('a.test')}/p${i}`).join('\n') + '\n';
    let interruptedAt = 0;
    const r = await runCli(
      ['crawl', '-', '--user-agent', 'T', '--out', out, '--min-interval', '100', '--redis', redis.url, '--run', 'int', '--worker', 'w1', '--resolve', v.resolve[0]!],
      {
        stdin: list,
        timeoutMs: 40_000,
        onStart: (child) => {
          const poll = setInterval(() => {
            if (v.requests('a.test').length < 5) return;
            clearInterval(poll);
            void redis.stop().then(() =>
              setTimeout(() => {
                interruptedAt = Date.now();
                child.kill('SIGINT');
              }, 1500),
            );
          }, 20);
        },
      },
    );
    const tookMs = Date.now() - interruptedAt;
    expect(r.signal).toBeNull(); // not the runner's SIGKILL
    expect(r.code, r.stderr).toBe(130);
    expect(tookMs).toBeLessThan(15_000);
    expect(r.stderr).toMatch(/is not answering/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const db = new Database(path.join(out, 'audit-w1.sqlite'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = db.prepare("SELECT url FROM attempts WHERE status IS NOT NULL").all() as { url: string }[];
    db.close();
    const seen = v.requests('a.test').filter((q) => q.path !== '/robots.txt' && q.endedAt !== undefined);
    const recorded = new Set(rows.map((x) => new URL(x.url).pathname));
    for (const q of seen) expect(recorded.has(q.path), q.path).toBe(true);
  });

  it('Redis restarted empty mid-run: exit 5 (a Redis failure, not a URL error), one line on the cause, rows intact', async () => {
    await redis.restart();
    const out = path.join(dir, 'out-lost');
    const list = Array.from({ length: 60 }, (_, i) => `${v.origin('a.test')}/q${i}`).join('\n') + '\n';
    const r = await runCli(
      ['crawl', '-', '--user-agent', 'T', '--out', out, '--min-interval', '100', '--redis', redis.url, '--run', 'lost', '--worker', 'w1', '--resolve', v.resolve[0]!],
      {
        stdin: list,
        timeoutMs: 40_000,
        onStart: () => {
          const poll = setInterval(() => {
            if (v.requests('a.test').filter((q) => q.path.startsWith('/q')).length < 5) return;
            clearInterval(poll);
            void redis.stop().then(() => setTimeout(() => void redis.restart(), 1000));
          }, 20);
        },
      },
    );
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/queue is gone from Redis/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const db = new Database(path.join(out, 'audit-w1.sqlite'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const n = (db.prepare('SELECT COUNT(*) AS n FROM attempts WHERE status IS NOT NULL').get() as { n: number }).n;
    db.close();
    expect(n).toBe(v.requests('a.test').filter((q) => q.path.startsWith('/q') && q.endedAt !== undefined).length);
  });
});
