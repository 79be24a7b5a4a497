// RFC 9309 §2.3 against real servers: one host per behaviour, each answering on loopback for its own
// name (through `resolve`). For each: the decision, and how many robots.txt requests arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import zlib from 'node:zlib';
import type http from 'node:http';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsGate } from '../../src/index.js';

const UA = 'FetchBot/1.0 (+https://bot.example/about)';
/** The Authorization header of each request credtarget.test received. */
const credAuth: (string | undefined)[] = [];
const RULES = 'User-agent: *\nDisallow: /private\n';

function status(code: number, headers: http.OutgoingHttpHeaders = {}) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => void res.writeHead(code, headers).end(`status ${code}`);
}

/** /robots.txt redirects `n` times (via /r1 … /rn) before a file that disallows /private. */
function redirectChain(n: number) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '/';
    const at = path === '/robots.txt' ? 0 : Number(/^\/r(\d+)$/.exec(path)?.[1] ?? NaN);
    if (Number.isNaN(at)) return void res.writeHead(200).end('page');
    if (at < n) return void res.writeHead(301, { location: `/r${at + 1}` }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(RULES);
  };
}

// Raw TCP servers for what an HTTP server library will not do: never answer, stall, reset.
interface RawServer {
  port: number;
  connections: number;
  requests: number;
  close(): Promise<void>;
}
async function rawServer(onRequest: (socket: net.Socket) => void): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  const state = { port: 0, connections: 0, requests: 0 } as RawServer;
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      if (buf.includes('\r\n\r\n')) {
        if (buf.startsWith('GET /robots.txt ')) state.requests++;
        buf = '';
        onRequest(socket);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as net.AddressInfo).port;
  state.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return state;
}

let vh: VirtualHosts;
let never: RawServer;
let stall: RawServer;
let reset: RawServer;
let drip: RawServer;
let closedPort: number;
let gate: RobotsGate;
/** For the servers that never finish: a short whole-fetch deadline keeps the file fast. The other
 *  gate has room for a loaded machine, so a slow answer is never mistaken for a timeout. */
let fastGate: RobotsGate;
const big = 'User-agent: *\nDisallow: /early\n' + '# filler line to pass the size cap\n'.repeat(150_000) + 'Disallow: /late\n';
const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('User-agent: *\nDisallow: /bomb\n'), Buffer.alloc(16 * 1024 * 1024, 0x20)]));

beforeAll(async () => {
  vh = await startVirtualHosts({
    'ok.test': site(RULES),
    'html.test': site('<!doctype html><html><head><title>Home</title></head><body>Disallow: /x</body></html>'),
    'empty.test': site(''),
    'huge.test': site(big),
    'bomb.test': (req, res) => {
      if (req.url !== '/robots.txt') return void res.writeHead(200).end('page');
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(bomb);
    },
    'moved.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: '/robots-real.txt' }).end();
      if (req.url === '/robots-real.txt') return void res.writeHead(200).end(RULES);
      res.writeHead(200).end('page');
    },
    'cross.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: `${vh.origin('target.test')}/robots.txt` }).end();
      res.writeHead(200).end('page');
    },
    'target.test': site('User-agent: *\nDisallow: /from-target\n'),
    'cred.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: vh.origin('credtarget.test').replace('http://', 'http://user:pw@') + '/robots.txt' }).end();
      res.writeHead(200).end('page');
    },
    'credtarget.test': (req, res) => {
      credAuth.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /from-credtarget\n');
    },
    'loop.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/robots.txt' }).end();
      res.writeHead(200).end('page');
    },
    'hops5.test': redirectChain(5),
    'hops6.test': redirectChain(6),
    's401.test': status(401),
    's403.test': status(403),
    's404.test': status(404),
    's410.test': status(410),
    's429.test': status(429, { 'retry-after': '1' }),
    's500.test': status(500),
    's503.test': status(503),
  });
  never = await rawServer(() => {});
  stall = await rawServer((s) => s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nUser-agent: *\nDisallow: /p'));
  reset = await rawServer((s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nUser-agent: *\nAllow: /\n');
    setTimeout(() => s.resetAndDestroy(), 20);
  });
  // Drip-feed: a byte every 20 ms forever. No single read ever waits long; only a whole-fetch
  // deadline stops it.
  drip = await rawServer((s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
    const timer = setInterval(() => (s.destroyed ? clearInterval(timer) : s.write('1\r\n#\r\n')), 20);
    s.once('close', () => clearInterval(timer));
  });
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const resolve = [
      ...vh.resolve,
      `never.test:${never.port}:127.0.0.1`,
      `stall.test:${stall.port}:127.0.0.1`,
      `reset.test:${reset.port}:127.0.0.1`,
      `drip.test:${drip.port}:127.0.0.1`,
      `closed.test:${closedPort}:127.0.0.1`,
  ];
  gate = new RobotsGate({ userAgent: UA, timeoutMs: 5000, resolve, minIntervalMs: 0, jitter: 0 });
  fastGate = new RobotsGate({ userAgent: UA, timeoutMs: 300, resolve, minIntervalMs: 0, jitter: 0 });
});

afterAll(async () => {
  await gate?.close();
  await fastGate?.close();
  await Promise.all([vh?.close(), never?.close(), stall?.close(), reset?.close(), drip?.close()]);
});

const robotsRequests = (host: string, path = '/robots.txt') => vh.requests(host, path).length;

describe('2xx', () => {
  it('200: the file rules, fetched once with the gate User-Agent', async () => {
    const blocked = await gate.check(`${vh.origin('ok.test')}/private/x`);
    const open = await gate.check(`${vh.origin('ok.test')}/public`);
    expect(blocked).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', rule: { type: 'disallow', pattern: '/private', line: 2 } });
    expect(blocked.group?.userAgents).toEqual(['*']);
    expect(open).toMatchObject({ allowed: true, reason: 'no-matching-rule', rule: null });
    expect(blocked.policy).toMatchObject({ robotsUrl: `${vh.origin('ok.test')}/robots.txt`, status: 200 });
    expect(blocked.policy.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(robotsRequests('ok.test')).toBe(1);
    expect(vh.requests('ok.test', '/robots.txt')[0]!.userAgent).toBe(UA);
  });

  it('200 with an HTML page: parsed as robots.txt anyway, flagged', async () => {
    const d = await gate.check(`${vh.origin('html.test')}/x`);
    expect(d).toMatchObject({ allowed: true, policy: { status: 200, html: true } });
    expect(robotsRequests('html.test')).toBe(1);
  });

  it('200 empty: everything allowed', async () => {
    const d = await gate.check(`${vh.origin('empty.test')}/anything`);
    expect(d).toMatchObject({ allowed: true, reason: 'no-matching-rule' });
    expect(d.policy.sha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(robotsRequests('empty.test')).toBe(1);
  });

  it('200 of 5 MB: the first maxBytes parse, the rest is never read', async () => {
    const early = await gate.check(`${vh.origin('huge.test')}/early`);
    const late = await gate.check(`${vh.origin('huge.test')}/late`);
    expect(early).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', policy: { truncated: true } });
    expect(late).toMatchObject({ allowed: true, reason: 'no-matching-rule' });
    expect(robotsRequests('huge.test')).toBe(1);
  });

  it('gzip that inflates past the cap: decoding stops at maxBytes', async () => {
    const d = await gate.check(`${vh.origin('bomb.test')}/bomb`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', policy: { status: 200, truncated: true } });
    expect(robotsRequests('bomb.test')).toBe(1);
  });
});

describe('3xx (§2.3.1.2)', () => {
  it('301 to the same origin: the target file rules', async () => {
    const d = await gate.check(`${vh.origin('moved.test')}/private`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
    expect(d.policy.finalUrl).toBe(`${vh.origin('moved.test')}/robots-real.txt`);
    expect(robotsRequests('moved.test')).toBe(1);
    expect(robotsRequests('moved.test', '/robots-real.txt')).toBe(1);
  });

  it('301 to another origin: that file rules the first origin', async () => {
    const d = await gate.check(`${vh.origin('cross.test')}/from-target`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', origin: vh.origin('cross.test') });
    expect(d.policy.finalUrl).toBe(`${vh.origin('target.test')}/robots.txt`);
    expect(robotsRequests('cross.test')).toBe(1);
    expect(robotsRequests('target.test')).toBe(1);
    // The target's own file came with that redirect: its first check sends no second request.
    const t = await gate.check(`${vh.origin('target.test')}/from-target`);
    expect(t).toMatchObject({ allowed: false, reason: 'disallowed-by-rule', origin: vh.origin('target.test') });
    expect(t.policy).toMatchObject({ robotsUrl: `${vh.origin('target.test')}/robots.txt`, finalUrl: `${vh.origin('target.test')}/robots.txt`, sha256: d.policy.sha256 });
    expect(robotsRequests('target.test')).toBe(1);
  });

  it('credentials in a redirect are neither sent nor recorded', async () => {
    const d = await gate.check(`${vh.origin('cred.test')}/from-credtarget`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
    expect(d.policy.finalUrl).toBe(`${vh.origin('credtarget.test')}/robots.txt`);
    expect(credAuth).toEqual([undefined]);
    const t = await gate.check(`${vh.origin('credtarget.test')}/from-credtarget`);
    expect(JSON.stringify(t)).not.toContain('user:pw');
  });

  it('a redirect loop: unavailable, allowed', async () => {
    const d = await gate.check(`${vh.origin('loop.test')}/x`);
    expect(d).toMatchObject({ allowed: true, reason: 'too-many-redirects' });
    expect(robotsRequests('loop.test')).toBe(1);
    expect(robotsRequests('loop.test', '/loop')).toBe(1);
  });

  it('5 hops are followed', async () => {
    const d = await gate.check(`${vh.origin('hops5.test')}/private`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
    expect(robotsRequests('hops5.test')).toBe(1);
    expect(vh.requests('hops5.test').length).toBe(6);
  });

  it('6 hops: too many, unavailable, allowed', async () => {
    const d = await gate.check(`${vh.origin('hops6.test')}/private`);
    expect(d).toMatchObject({ allowed: true, reason: 'too-many-redirects', policy: { status: 301 } });
    expect(robotsRequests('hops6.test')).toBe(1);
    expect(vh.requests('hops6.test').length).toBe(6);
    expect(robotsRequests('hops6.test', '/r6')).toBe(0);
  });
});

describe('4xx (§2.3.1.3): unavailable, all allowed', () => {
  for (const code of [401, 403, 404, 410]) {
    it(String(code), async () => {
      const host = `s${code}.test`;
      const d = await gate.check(`${vh.origin(host)}/private`);
      expect(d).toMatchObject({ allowed: true, reason: 'unavailable', rule: null, policy: { status: code, sha256: null } });
      await gate.check(`${vh.origin(host)}/again`);
      expect(robotsRequests(host)).toBe(1);
    });
  }
});

describe('unreachable (§2.3.1.4): all disallowed', () => {
  for (const code of [429, 500, 503]) {
    it(String(code), async () => {
      const host = `s${code}.test`;
      const d = await gate.check(`${vh.origin(host)}/anything`);
      expect(d).toMatchObject({ allowed: false, reason: 'unreachable', policy: { status: code, sha256: null } });
      await gate.check(`${vh.origin(host)}/again`);
      expect(robotsRequests(host)).toBe(1);
    });
  }

  it('a server that never answers: timeout', async () => {
    const t0 = Date.now();
    const d = await fastGate.check(`http://never.test:${never.port}/x`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable', policy: { status: 'ETIMEDOUT' } });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(never.requests).toBe(1);
  });

  it('a body that stalls mid-way: timeout, the partial rules are not used', async () => {
    const d = await fastGate.check(`http://stall.test:${stall.port}/public`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable', policy: { status: 'ETIMEDOUT' } });
    expect(stall.requests).toBe(1);
  });

  it('a drip-fed body: the deadline is for the whole fetch, not each read', async () => {
    const t0 = Date.now();
    const d = await fastGate.check(`http://drip.test:${drip.port}/x`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable', policy: { status: 'ETIMEDOUT' } });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(drip.requests).toBe(1);
  });

  it('a reset mid-body: a body cut short is unreachable', async () => {
    const d = await gate.check(`http://reset.test:${reset.port}/public`);
    expect(d.allowed).toBe(false);
    expect(d.reason).toBe('unreachable');
    expect(typeof d.policy.status).toBe('string');
    expect(reset.requests).toBe(1);
  });

  it('a name that does not resolve', async () => {
    const d = await fastGate.check('http://nope.invalid/x');
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
    expect(typeof d.policy.status).toBe('string');
  });

  it('a closed port: connection refused', async () => {
    const d = await gate.check(`http://closed.test:${closedPort}/x`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable', policy: { status: 'ECONNREFUSED' } });
  });
});
