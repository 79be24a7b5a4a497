// End to end: the real `robots-gate crawl` CLI as a subprocess, through the replay server, over a
// handful of example hosts, checked from the server's side: no URL the parser disallows arrives,
// every host's robots.txt is fetched once, and every allowed URL is fetched once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../dist/parser/index.js';
import { loadExamples, start, type Replay } from '../../scripts/replay-server.mjs';
import { DEMO_USER_AGENT, buildUrlList, formatUrlList, type HostPlan } from '../../scripts/url-list.mjs';

const CLI = new URL('../../dist/cli/main.js', import.meta.url).pathname;
// No Crawl-delay (the floor is the small --min-interval below), one file per oddity, a host that
// disallows everything, and one whose Crawl-delay (a day) makes the crawl skip it.
const HOSTS = [
  'github.com',
  'de.wikipedia.org', // UTF-8 BOM, non-ASCII paths
  'stackoverflow.com', // * and $
  'www.analog.com', // CR-only line ends
  'www.koreanair.com', // invalid UTF-8
  'reddit.com', // Disallow: / for *
  'www.inkscape.org', // Crawl-delay 86400
];
const MIN_INTERVAL_MS = 50;

function run(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('robots-gate crawl over the replayed examples', () => {
  let replay: Replay;
  let plans: (HostPlan & { bytes: Buffer })[];
  let dir: string;
  let result: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    const examples = loadExamples().filter((e) => HOSTS.includes(e.host));
    replay = await start(0, { examples });
    plans = buildUrlList(examples, {
      origin: replay.origin,
      minIntervalMs: MIN_INTERVAL_MS,
      maxAllowed: 5,
      maxDisallowed: 4,
    }).map((p, i) => ({ ...p, bytes: examples[i].bytes }));
    dir = mkdtempSync(join(tmpdir(), 'robots-gate-demo-e2e-'));
    const list = join(dir, 'urls.txt');
    writeFileSync(list, formatUrlList(plans));
    result = await run(
      ['crawl', list, '--user-agent', DEMO_USER_AGENT, '--out', join(dir, 'out'), '--min-interval', String(MIN_INTERVAL_MS), ...replay.resolveArgs],
      25_000,
    );
  }, 30_000);

  afterAll(async () => {
    await replay?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0', () => {
    expect(result.code, result.stderr).toBe(0);
  });

  it("fetches each host's robots.txt once", () => {
    for (const host of HOSTS) expect(replay.log.filter((r) => r.host === host && r.path === '/robots.txt').length, host).toBe(1);
  });

  it('sends no URL the parser disallows, and every allowed URL once', () => {
    for (const p of plans) {
      const robots = parseRobotsTxt(p.bytes);
      const pages = replay.log.filter((r) => r.host === p.host && r.path !== '/robots.txt');
      for (const r of pages) expect(robots.isAllowed(r.path, DEMO_USER_AGENT), `${p.host}${r.path} reached the server`).toBe(true);
      const expected = p.skipped ? [] : p.urls.filter((u) => u.allowed).map((u) => u.path);
      expect(pages.map((r) => r.path).sort(), p.host).toEqual([...expected].sort());
    }
    expect(plans.some((p) => p.urls.some((u) => !u.allowed))).toBe(true);
  });

  it('keeps at least the floor between the end of one response and the next request to a host', () => {
    for (const host of HOSTS) {
      const seen = replay.log.filter((r) => r.host === host);
      for (let i = 1; i < seen.length; i++) {
        if (seen[i - 1].path === '/robots.txt') continue; // the crawl need not space a page from the robots.txt fetch
        const gap = seen[i].startedAt - (seen[i - 1].endedAt ?? Number.POSITIVE_INFINITY);
        expect(gap, `${host}: ${seen[i - 1].path} then ${seen[i].path}`).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
      }
    }
  });

  it('records one audit row per URL, by outcome', () => {
    const db = new Database(join(dir, 'out', 'audit.sqlite'), { readonly: true });
    try {
      const count = (outcome: string) =>
        (db.prepare("SELECT count(*) AS n FROM attempts WHERE outcome = ? AND kind = 'page'").get(outcome) as { n: number }).n;
      const live = plans.filter((p) => !p.skipped).flatMap((p) => p.urls);
      expect(count('fetched')).toBe(live.filter((u) => u.allowed).length);
      expect(count('blocked')).toBe(live.filter((u) => !u.allowed).length);
      expect(count('skipped')).toBe(plans.filter((p) => p.skipped).flatMap((p) => p.urls).length);
    } finally {
      db.close();
    }
  });
});
