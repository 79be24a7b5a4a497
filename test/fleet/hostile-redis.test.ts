// A fleet worker given a Redis it cannot use: it must say so at start and exit 5, never carry on
// against the wrong keys.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/stores/redis-connection.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const REDIS = process.env.REDIS_URL!;
let web: http.Server;
let webPort: number;
let hits = 0;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-hostile-redis-'));
beforeAll(async () => {
  assertBuilt();
  web = http.createServer((_, res) => {
    hits++;
    res.end('hello\n');
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webPort = (web.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => web.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a Redis URL that cannot be used', () => {
  it('a database index the server does not have is refused at start (ioredis fell back to database 0)', async () => {
    const url = `${REDIS.replace(/\/\d*$/, '')}/9999`;
    await expect(connectRedis(url, { connectTimeoutMs: 2000 })).rejects.toThrow(/DB index is out of range/);
  });

  it('a port that is not Redis is named as such', async () => {
    await expect(connectRedis(`redis://127.0.0.1:${webPort}`, { connectTimeoutMs: 2000 })).rejects.toThrow(/does not speak the Redis protocol/);
  });

  it('the crawl exits 5 with one line naming the cause, and sends nothing', async () => {
    const url = `${REDIS.replace(/\/\d*$/, '')}/9999`;
    const r = await runCli(['crawl', '-', '--user-agent', 'T', '--out', path.join(dir, 'o'), '--redis', url, '--run', 'hostile-db'], {
      stdin: `http://127.0.0.1:${webPort}/x\n`,
    });
    expect(r.code).toBe(5);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/DB index is out of range/);
    expect(hits).toBe(0);
  });

  it('an empty --worker name is bad usage (it silently became the single-process audit.sqlite)', async () => {
    const r = await runCli(['crawl', '-', '--user-agent', 'T', '--out', path.join(dir, 'w'), '--redis', REDIS, '--run', 'hostile-w', '--worker', ''], {
      stdin: `http://127.0.0.1:${webPort}/x\n`,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--worker must be/);
    expect(hits).toBe(0);
  });
});
