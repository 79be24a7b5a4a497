// HTTPS through `resolve`: SNI and certificate checks use the host name asked for, not the address
// connected to; a certificate that does not verify is a TLS failure, so robots.txt is unreachable.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createResolvingAgent, RobotsGate } from '../../src/index.js';

let server: https.Server;
let port: number;
let ca: string;
const seen: string[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rg-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=secure.test',
      '-addext', 'subjectAltName=DNS:secure.test', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    ca = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(path.join(dir, 'key.pem'), 'utf8');
    server = https.createServer({ key, cert: ca }, (req, res) => {
      seen.push(`${req.headers.host} ${req.url}`);
      res.writeHead(200).end(req.url === '/robots.txt' ? 'User-agent: *\nDisallow: /private\n' : 'page');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

it('verifies the certificate against the requested name when resolve redirects the connection', async () => {
  const agent = createResolvingAgent([`secure.test:${port}:127.0.0.1`], { connect: { ca } });
  const gate = new RobotsGate({ userAgent: 'TlsBot/1.0', dispatcher: agent, timeoutMs: 1000 });
  try {
    const d = await gate.check(`https://secure.test:${port}/private`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', policy: { status: 200 } });
    expect(seen).toContain(`secure.test:${port} /robots.txt`);
  } finally {
    await gate.close();
    await agent.close();
  }
});

it('a certificate that does not verify is a TLS failure: unreachable, all disallowed', async () => {
  const before = seen.length;
  const gate = new RobotsGate({ userAgent: 'TlsBot/1.0', resolve: [`secure.test:${port}:127.0.0.1`], timeoutMs: 1000 });
  try {
    const d = await gate.check(`https://secure.test:${port}/public`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
    expect(d.policy.status).toMatch(/CERT|SELF_SIGNED|TLS/);
    expect(seen.length).toBe(before);
  } finally {
    await gate.close();
  }
});
