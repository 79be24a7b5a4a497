// A private redis-server for a test that must stop, pause or restart it (never the shared one).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

// Below Linux's ephemeral range (32768 and up): while a test has its Redis stopped, a port from
// that range can be taken by any socket the suite opens, and a client reconnecting to it can
// even connect to itself (TCP simultaneous open) and read its own commands back as replies.
const OWN_PORTS = { from: 20_000, to: 32_000 };

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (;;) {
    const port = OWN_PORTS.from + Math.floor(Math.random() * (OWN_PORTS.to - OWN_PORTS.from));
    if (await bindable(port)) return port;
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once('error', () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export interface OwnRedis {
  readonly url: string;
  /** The running server process (replaced by `restart`). */
  readonly child: ChildProcess;
  /** Kill the server (a crash: no persistence, its data is gone). */
  stop(): Promise<void>;
  /** Start a fresh server on the same port. */
  restart(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const launch = async () => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; !(await ping(port)); i++) {
      if (i === 50) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on 127.0.0.1:${port} within 5 s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return child;
  };
  let child = await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    get child() {
      return child;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    },
    restart: async () => {
      child = await launch();
    },
  };
}
