// The shared set-up of the crawl CLI tests: the built CLI, temporary directories and loopback
// virtual hosts, all removed after each test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt } from './run-cli.js';

export interface CrawlFixture {
  /** A fresh temporary directory, removed after the test. */
  tmp(): string;
  /** Start loopback virtual hosts, closed after the test. */
  hosts(map: Parameters<typeof startVirtualHosts>[0]): Promise<VirtualHosts>;
  /** `--resolve HOST:PORT:127.0.0.1` for every host of `v`. */
  resolveArgs(v: VirtualHosts): string[];
}

/** Write `lines` as a URL list file `name` in `dir` (one per line); returns its path. */
export function writeList(dir: string, name: string, lines: readonly string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Register the hooks in the calling test file; `prefix` names its temporary directories. */
export function crawlFixture(prefix: string): CrawlFixture {
  let servers: VirtualHosts[] = [];
  const dirs: string[] = [];
  beforeAll(assertBuilt);
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return {
    tmp() {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    async hosts(map) {
      const v = await startVirtualHosts(map);
      servers.push(v);
      return v;
    },
    resolveArgs: (v) => v.resolve.flatMap((r) => ['--resolve', r]),
  };
}
