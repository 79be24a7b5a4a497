// The doors together: robots.txt through the proxy the interceptor is composed onto, a CrawlJob
// and a gate.fetch loop on one host, and two processes sharing one Redis limiter. Gaps are
// measured at the server: request start minus the previous response's end, per host.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { CrawlJob, HttpTransport, MemoryFrontier, MemoryRateLimiter, RobotsGate, SqliteAuditSink } from '../../src/index.js';
import { deleteKeys, redisUrl, uniquePrefix } from '../stores/redis-test-keys.js';
import { assertBuilt } from '../cli/run-cli.js';

const UA = 'DoorBot/1.0 (+https://bot.example/about)';
let vh: VirtualHosts;

beforeAll(async () => {
  vh = await startVirtualHosts({
    'prox.test': site('User-agent: *\nDisallow: /private\n'),
    'mix.test': site('User-agent: *\nAllow: /\n'),
    'viaproxy.test': site('User-agent: *\nAllow: /\n'),
    'fleet.test': site('User-agent: *\nAllow: /\n'),
  });
});
afterAll(async () => {
  await vh?.close();
});

function gapsOf(host: string): number[] {
  const log = vh.requests(host).slice().sort((a, b) => a.startedAt - b.startedAt);
  return log.slice(1).map((r, i) => r.startedAt - log[i]!.endedAt!);
}

/** A loopback forward proxy (CONNECT tunnels and absolute-form requests) that records each
 *  target it forwards, and sends everything to the virtual hosts' port on 127.0.0.1. */
async function forwardProxy(port: number): Promise<{ url: string; forwarded: string[]; close(): Promise<void> }> {
  const forwarded: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    const up = http.request({ host: '127.0.0.1', port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  server.on('connect', (req, client, head) => {
    forwarded.push(`CONNECT ${req.url}`);
    const up = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up).add(client as net.Socket);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwarded,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('robots.txt goes the way the requests go', () => {
  it('through the ProxyAgent the interceptor is composed onto, not a private Agent', async () => {
    const proxy = await forwardProxy(vh.port);
    // A direct connection from the gate's own Agent would meet a closed loopback port: robots.txt
    // would be unreachable and every URL disallowed.
    const gate = new RobotsGate({ userAgent: UA, minIntervalMs: 100, jitter: 0, limiter: new MemoryRateLimiter(), resolve: [`prox.test:${vh.port}:127.0.0.2`] });
    const dispatcher = new ProxyAgent(proxy.url).compose(gate.interceptor());
    try {
      const res = await undiciFetch(`${vh.origin('prox.test')}/open`, { dispatcher });
      expect(res.status).toBe(200);
      await res.text();
      await expect(undiciFetch(`${vh.origin('prox.test')}/private/x`, { dispatcher })).rejects.toThrow();
      expect(vh.requests('prox.test').map((r) => r.path)).toEqual(['/robots.txt', '/open']);
      expect(proxy.forwarded.some((f) => f.includes(`prox.test:${vh.port}`))).toBe(true);
      // And through the proxy, the page still waited its turn after robots.txt.
      expect(gapsOf('prox.test')[0]!).toBeGreaterThanOrEqual(100);
    } finally {
      await dispatcher.close();
      await gate.close();
      await proxy.close();
    }
  });

  it("README's shape: one ProxyAgent as the gate's dispatcher and under the interceptor; a gate.check() first loads robots.txt through it", async () => {
    const proxy = await forwardProxy(vh.port);
    // Only the proxy reaches viaproxy.test: the name resolves nowhere from here.
    const agent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    const gate = new RobotsGate({ userAgent: UA, dispatcher: agent, minIntervalMs: 100, jitter: 0, limiter: new MemoryRateLimiter() });
    const dispatcher = agent.compose(gate.interceptor());
    const origin = `http://viaproxy.test:${vh.port}`;
    try {
      expect(await gate.check(`${origin}/a`)).toMatchObject({ allowed: true, reason: 'allowed-by-rule' });
      const res = await undiciFetch(`${origin}/a`, { dispatcher });
      expect(res.status).toBe(200);
      await res.text();
      // Plain forwarding (no CONNECT): the proxy saw both, robots.txt first.
      expect(proxy.forwarded).toEqual([`GET ${origin}/robots.txt`, `GET ${origin}/a`]);
    } finally {
      await gate.close();
      await agent.close();
      await proxy.close();
    }
  });
});

describe('a proxy that refuses', () => {
  it("robots.txt unreachable through a ProxyAgent whose CONNECT gets 501: the error names the proxy's answer", async () => {
    const refusing = http.createServer((_req, res) => void res.writeHead(501).end());
    refusing.on('connect', (_req, socket: net.Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\ncontent-length: 0\r\n\r\n'));
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', () => r()));
    const proxy = new ProxyAgent(`http://127.0.0.1:${(refusing.address() as AddressInfo).port}`);
    const gate = new RobotsGate({ userAgent: UA, dispatcher: proxy, timeoutMs: 5000 });
    try {
      const d = await gate.check('http://refused.test/page');
      expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
      expect(d.policy.error).toMatch(/Proxy response \(501\)/);
      const err = await gate.fetch('http://refused.test/page').catch((e: unknown) => e as Error);
      expect((err as Error).message).toMatch(/is unreachable \(UND_ERR_ABORTED: .*Proxy response \(501\)/);
    } finally {
      await gate.close();
      await proxy.close();
      await new Promise((r) => refusing.close(r));
    }
  });
});

describe('two doors on one host', () => {
  it('a CrawlJob and a gate.fetch loop sharing a limiter never come closer than the interval', async () => {
    const limiter = new MemoryRateLimiter();
    const crawlGate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, politeness: false, minIntervalMs: 150, jitter: 0, limiter });
    const loopGate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, minIntervalMs: 150, jitter: 0, limiter });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-doors-'));
    const frontier = new MemoryFrontier({ minIntervalMs: 150, jitter: 0 });
    const urls = [1, 2, 3, 4].map((i) => `${vh.origin('mix.test')}/crawl${i}`);
    await frontier.add(urls.map((url) => ({ url, host: new URL(url).host })));
    const audit = new SqliteAuditSink(path.join(dir, 'audit.sqlite'));
    const job = new CrawlJob({
      gate: crawlGate,
      frontier,
      transport: new HttpTransport({ gate: crawlGate, followRedirects: false }),
      audit,
      outDir: path.join(dir, 'out'),
      runId: 'doors',
      minIntervalMs: 150,
    });
    try {
      await Promise.all([
        job.run(),
        (async () => {
          for (let i = 0; i < 4; i++) await (await loopGate.fetch(`${vh.origin('mix.test')}/loop${i}`)).text();
        })(),
      ]);
      const paths = vh.requests('mix.test').map((r) => r.path);
      expect(paths.filter((p) => p.startsWith('/crawl'))).toHaveLength(4);
      expect(paths.filter((p) => p.startsWith('/loop'))).toHaveLength(4);
      for (const g of gapsOf('mix.test')) expect(g).toBeGreaterThanOrEqual(150);
    } finally {
      audit.close();
      await crawlGate.close();
      await loopGate.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a fleet', () => {
  it('two processes with gate.fetch loops through one Redis limiter keep one interval per host', async () => {
    assertBuilt();
    const prefix = uniquePrefix('doors');
    const dist = path.resolve('dist');
    const script = `
      const { RobotsGate } = await import(${JSON.stringify(path.join(dist, 'index.js'))});
      const { createRedisStores } = await import(${JSON.stringify(path.join(dist, 'stores/redis.js'))});
      const [origin, redis, prefix, resolve] = process.argv.slice(1);
      const stores = await createRedisStores(redis, { prefix });
      const gate = new RobotsGate({ userAgent: 'DoorBot/1.0', resolve: [resolve], minIntervalMs: 150, jitter: 0, limiter: stores.limiter, store: stores.store });
      for (let i = 0; i < 4; i++) await (await gate.fetch(origin + '/p' + process.pid + '-' + i)).text();
      await gate.close();
      await stores.close();
    `;
    const run = promisify(execFile);
    const args = ['--input-type=module', '-e', script, vh.origin('fleet.test'), redisUrl(), prefix, `fleet.test:${vh.port}:127.0.0.1`];
    try {
      await Promise.all([run(process.execPath, args, { timeout: 20_000 }), run(process.execPath, args, { timeout: 20_000 })]);
      const paths = vh.requests('fleet.test').map((r) => r.path);
      expect(paths.filter((p) => p !== '/robots.txt')).toHaveLength(8);
      // One robots.txt for the fleet (shared store), and every gap at least the interval.
      expect(paths.filter((p) => p === '/robots.txt')).toHaveLength(1);
      for (const g of gapsOf('fleet.test')) expect(g).toBeGreaterThanOrEqual(150);
    } finally {
      await deleteKeys(prefix);
    }
  }, 30_000);
});
