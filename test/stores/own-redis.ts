// A private redis-server for a test that must stop or pause it (never the shared one).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startOwnRedis(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      const done = (ok: boolean) => {
        s.destroy();
        resolve(ok);
      };
      s.once('error', () => done(false));
      s.once('connect', () => s.write('PING\r\n'));
      s.once('data', (d) => done(d.toString().startsWith('+PONG')));
    });
  for (let i = 0; i < 50 && !(await ping()); i++) await new Promise((r) => setTimeout(r, 100));
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

