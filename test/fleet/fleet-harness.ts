// What the fleet tests share: 8 local hosts with Crawl-delays of 0.2 to 0.5 s and 400 URLs over
// them, `robots-gate crawl --redis` workers as real subprocesses, and the checks made from the
// servers' own request log.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
export { startOwnRedis } from '../stores/own-redis.js';
import { site, startVirtualHosts, type LoggedRequest, type VirtualHosts } from '../helpers/hosts.js';

export const CLI = new URL('../../dist/cli/main.js', import.meta.url).pathname;
export const USER_AGENT = 'FleetBot/1.0 (+https://example.test/bot)';

/** Crawl-delay (s) per host; URLs are spread in inverse proportion, so every host takes
 *  about as long and the run is as short as 400 URLs allow. */
const DELAYS = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.5];
export const TOTAL_URLS = 400;

export interface Fleet {
  hosts: VirtualHosts;
  names: string[];
  delayMs: Map<string, number>;
  /** Every URL of the list, and which of them robots.txt allows. */
  urls: string[];
  allowed: Set<string>;
  dir: string;
  listFile: string;
  run: string;
  /** Key patterns this fleet leaves in Redis (the run's frontier and override marks, and the
   *  policies and per-host state of its hosts, which are shared Redis-wide). */
  keyPatterns: string[];
  close(): Promise<void>;
}

export async function startFleet(tag: string): Promise<Fleet> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p tsconfig.build.json)`);
  const names = DELAYS.map((_, i) => `h${i}.${tag}.test`);
  const handlers: Record<string, ReturnType<typeof site>> = {};
  const delayMs = new Map<string, number>();
  names.forEach((h, i) => {
    handlers[h] = site(`User-agent: *\nCrawl-delay: ${DELAYS[i]}\nDisallow: /private/\n`);
    delayMs.set(h, DELAYS[i]! * 1000);
  });
  const hosts = await startVirtualHosts(handlers);
  const weights = DELAYS.map((d) => 1 / d);
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((TOTAL_URLS * w) / sum));
  counts[0]! += TOTAL_URLS - counts.reduce((a, b) => a + b, 0);
  const urls: string[] = [];
  const allowed = new Set<string>();
  names.forEach((h, i) => {
    for (let p = 0; p < counts[i]!; p++) {
      // one URL in ten is disallowed: it must never reach the server
      const url = p % 10 === 9 ? `${hosts.origin(h)}/private/p${p}` : `${hosts.origin(h)}/p${p}`;
      urls.push(url);
      if (p % 10 !== 9) allowed.add(url);
    }
  });
  // interleave the hosts, as a real list would
  urls.sort((a, b) => Number(/p(\d+)$/.exec(a)![1]) - Number(/p(\d+)$/.exec(b)![1]) || a.localeCompare(b));
  const dir = mkdtempSync(join(tmpdir(), `rg-fleet-${tag}-`));
  const run = `${tag}-${process.pid}-${Date.now()}`;
  const listFile = join(dir, 'urls.txt');
  writeFileSync(listFile, urls.join('\n') + '\n');
  return {
    hosts,
    names,
    delayMs,
    urls,
    allowed,
    dir,
    listFile,
    run,
    keyPatterns: [`robots-gate:run:${run}:`, `robots-gate:*.${tag}.test:${hosts.port}`],
    close: async () => {
      await hosts.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Worker {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start one `robots-gate crawl --redis` worker. Killed after `timeoutMs` whatever happens. */
/** `extra`: more flags, after the harness's own (a later `--min-interval` wins). */
export function startWorker(fleet: Fleet, redisUrl: string, name: string, env: Record<string, string> = {}, timeoutMs = 90_000, extra: string[] = []): Worker {
  const args = [
    CLI,
    'crawl',
    fleet.listFile,
    '--user-agent',
    USER_AGENT,
    '--out',
    join(fleet.dir, 'out'),
    '--min-interval',
    '0',
    '--progress-interval',
    '60000',
    '--redis',
    redisUrl,
    '--run',
    fleet.run,
    '--worker',
    name,
    ...fleet.hosts.resolve.flatMap((r) => ['--resolve', r]),
    ...extra,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    }),
  );
  return { child, stderr: () => err, exit };
}

/** Run the CLI to the end (e.g. `audit DIR --json`). */
export function runCli(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Page requests (robots.txt aside) per URL, as the servers saw them. */
export function pageCounts(fleet: Fleet): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of fleet.hosts.log) {
    if (r.path === '/robots.txt') continue;
    const url = `${fleet.hosts.origin(r.host)}${r.path}`;
    counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return counts;
}

/** Per host, gaps between consecutive page request starts shorter than its Crawl-delay less
 *  `toleranceMs`: each as "host: gap ms < interval ms". */
export function shortGaps(fleet: Fleet, toleranceMs = 5): string[] {
  const out: string[] = [];
  for (const host of fleet.names) {
    const starts = fleet.hosts
      .requests(host)
      .filter((r: LoggedRequest) => r.path !== '/robots.txt')
      .map((r) => r.startedAt)
      .sort((a, b) => a - b);
    const interval = fleet.delayMs.get(host)!;
    for (let i = 1; i < starts.length; i++) {
      const gap = starts[i]! - starts[i - 1]!;
      if (gap < interval - toleranceMs) out.push(`${host}: ${gap.toFixed(1)} ms < ${interval} ms`);
    }
  }
  return out;
}

export function robotsFetches(fleet: Fleet): Map<string, number> {
  return new Map(fleet.names.map((h) => [h, fleet.hosts.requests(h, '/robots.txt').length]));
}

/** Every page attempt row of every worker's audit file in the output DIR. */
export function auditRows(fleet: Fleet): { file: string; url: string; outcome: string }[] {
  const out = join(fleet.dir, 'out');
  const rows: { file: string; url: string; outcome: string }[] = [];
  for (const file of readdirSync(out).filter((f) => /^audit.*\.sqlite$/.test(f))) {
    const db = new Database(join(out, file), { readonly: true });
    try {
      for (const r of db.prepare("SELECT url, outcome FROM attempts WHERE kind = 'page'").all() as { url: string; outcome: string }[]) {
        rows.push({ file, ...r });
      }
    } finally {
      db.close();
    }
  }
  return rows;
}

/** The servers' clock (performance.timeOrigin based, like LoggedRequest.startedAt). */
export const serverNow = () => performance.timeOrigin + performance.now();
