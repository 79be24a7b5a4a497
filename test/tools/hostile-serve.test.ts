// `robots-gate serve` given bad arguments, and hostile requests to its pages: it says what is wrong
// and exits 1, or answers with an error; it never serves a file it was not given.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from './cli.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe('serve with bad arguments', () => {
  it('a malformed --resolve entry: exit 1 at start, naming it', async () => {
    const r = await runCli(['serve', '--port', '0', '--resolve', 'garbage'], { timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('invalid resolve entry "garbage"');
  });

  it('a --timeout no timer can hold: exit 1', async () => {
    const r = await runCli(['serve', '--port', '0', '--timeout', '99999999999'], { timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--timeout must be a number of ms');
  });

  it('a port that is taken: exit 1, saying so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = (blocker.address() as net.AddressInfo).port;
      const r = await runCli(['serve', '--port', String(port)], { timeoutMs: 10_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('EADDRINUSE');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});

describe('serve against hostile requests', () => {
  it('path traversal, encoded or not, reaches no file', async () => {
    const s = await startServe([]);
    servers.push(s);
    const port = new URL(s.url).port;
    for (const target of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fpackage.json', '//etc/passwd', '/..\\..\\etc\\passwd']) {
      // A raw request line, so no client resolves the dots first.
      const answer = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(Number(port), '127.0.0.1', () => sock.end(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
        let data = '';
        sock.setEncoding('utf8').on('data', (d: string) => (data += d)).on('end', () => resolve(data)).on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 (400|404)/);
      expect(answer).not.toContain('root:');
      expect(answer).not.toContain('"name": "robots-gate"');
    }
  });
});
