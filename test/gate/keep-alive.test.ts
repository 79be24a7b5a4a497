// The gate's own Agent does not keep idle connections for as long as a server's Keep-Alive hint
// asks: a broad crawl would hold one socket per host it has seen and run out of file descriptors.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RobotsGate } from '../../src/index.js';

let server: http.Server;
const open = new Set<Socket>();
beforeAll(async () => {
  server = http.createServer((req, res) => res.writeHead(req.url === '/robots.txt' ? 404 : 200).end('ok'));
  // Node sends `Keep-Alive: timeout=60` for this: undici would keep each socket 60 s.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

it('closes its idle connections within about 5 s, not after the 60 s the server offers', async () => {
  const port = (server.address() as AddressInfo).port;
  const hosts = Array.from({ length: 20 }, (_, i) => `h${i}.test`);
  const gate = new RobotsGate({ userAgent: 'KeepBot/1.0', resolve: hosts.map((h) => `${h}:${port}:127.0.0.1`), minIntervalMs: 0, jitter: 0 });
  try {
    for (const h of hosts) await (await gate.fetch(`http://${h}:${port}/page`)).text();
    expect(open.size).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 6_500));
    expect(open.size).toBe(0);
  } finally {
    await gate.close();
  }
});
