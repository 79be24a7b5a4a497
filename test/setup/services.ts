// Vitest global setup: make sure the services the tests talk to are really there.
// Redis: use REDIS_URL if set, else 127.0.0.1:6379 if it answers, else start Debian's
// redis-server on a free loopback port for the length of the run. No mock Redis, ever.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

function ping(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

let child: ChildProcess | undefined;

export async function setup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  if (await ping('127.0.0.1', 6379)) {
    process.env.REDIS_URL = 'redis://127.0.0.1:6379';
    return;
  }
  const port = await freePort();
  child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  child.once('error', (err) => {
    throw new Error(`cannot start redis-server (install Debian's redis-server package): ${err.message}`);
  });
  for (let i = 0; i < 50; i++) {
    if (await ping('127.0.0.1', port)) {
      process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
}

export async function teardown(): Promise<void> {
  child?.kill('SIGTERM');
}
