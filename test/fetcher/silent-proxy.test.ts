// A proxy that accepts the connection and never answers CONNECT: undici's request() does not hear
// its abort signal while it waits for that answer, so the robots.txt fetch must end on its own
// timeout. Before the fix a gate.check() through such a proxy never returned (undici 7.30).
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { RobotsGate } from '../../src/index.js';
import { fetchRobotsTxt } from '../../src/fetcher/robots-fetcher.js';

let silent: net.Server;
let proxyUrl: string;
const accepted: net.Socket[] = [];

beforeAll(async () => {
  silent = net.createServer((s) => {
    accepted.push(s);
    s.on('data', () => {});
    s.on('error', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of accepted) s.destroy();
  await new Promise((r) => silent.close(r));
});

it('fetchRobotsTxt through it is unreachable (ETIMEDOUT) at its timeout', async () => {
  const dispatcher = new ProxyAgent(proxyUrl);
  try {
    const t = performance.now();
    const r = await fetchRobotsTxt('http://example.test', { dispatcher, userAgent: 'Bot/1.0', timeoutMs: 300, maxBytes: 1000, maxRedirects: 5 });
    expect(r).toMatchObject({ kind: 'unreachable', status: 'ETIMEDOUT' });
    expect(performance.now() - t).toBeLessThan(5_000);
    expect(accepted.length).toBeGreaterThan(0);
  } finally {
    void dispatcher.destroy().catch(() => {});
  }
}, 10_000);

it('a gate on it disallows (§2.3.1.4) at its timeoutMs, for check() and through its interceptor', async () => {
  const agent = new ProxyAgent(proxyUrl);
  const gate = new RobotsGate({ userAgent: 'SilentProxyBot/1.0', dispatcher: agent, timeoutMs: 300 });
  const dispatcher = agent.compose(gate.interceptor());
  try {
    expect(await gate.check('http://a.example.test/page')).toMatchObject({ allowed: false, reason: 'unreachable' });
    await expect(undiciFetch('http://b.example.test/page', { dispatcher })).rejects.toThrow();
    await expect(gate.fetch('http://c.example.test/page')).rejects.toMatchObject({ code: 'ERR_ROBOTS_BLOCKED' });
  } finally {
    await gate.close();
    void agent.destroy().catch(() => {});
  }
}, 15_000);
