// The gate against hostile input: servers that lie or stall, URLs and identities that cannot be
// used. Each yields a fail-closed decision or a clear error, within the configured time.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { InvalidUserAgentError, RobotsGate, UnsupportedSchemeError } from '../../src/index.js';

const UA = 'HostileBot/1.0';
let vh: VirtualHosts;
let raw: net.Server;
let rawPort = 0;
const gates: RobotsGate[] = [];
const newGate = (o: Partial<ConstructorParameters<typeof RobotsGate>[0]> = {}) => {
  const g = new RobotsGate({ userAgent: UA, timeoutMs: 5000, minIntervalMs: 0, jitter: 0, resolve: [...vh.resolve, ...rawResolve()], ...o });
  gates.push(g);
  return g;
};

// Raw TCP answers, for what node:http would refuse to send (header floods, lying lengths).
const RAW: Record<string, (s: net.Socket) => void> = {
  'headers.test': (s) => {
    s.write('HTTP/1.1 200 OK\r\n');
    for (let i = 0; i < 200; i++) s.write(`X-${i}: ${'a'.repeat(1000)}\r\n`);
    s.end('\r\nUser-agent: *\nAllow: /\n');
  },
  'longer.test': (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nUser-agent: *\nAllow: /\n'),
  'drip.test': (s) => {
    s.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
    const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write('#')), 100);
    s.on('close', () => clearInterval(t));
  },
  'garbage-location.test': (s) => s.end('HTTP/1.1 301 Moved\r\nLocation: http://[zz\r\nContent-Length: 0\r\n\r\n'),
};
const rawResolve = () => Object.keys(RAW).map((h) => `${h}:${rawPort}:127.0.0.1`);

beforeAll(async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x61));
  vh = await startVirtualHosts({
    'creds.test': site('User-agent: *\nDisallow: /private\n'),
    'to-file.test': (_req, res) => void res.writeHead(301, { location: 'file:///etc/passwd' }).end(),
    'bomb.test': (req, res) => {
      if (req.url !== '/robots.txt') return void res.end('page');
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bomb.length }).end(bomb);
    },
    'oneline.test': site(`User-agent: *\nDisallow: /x\nDisallow: /${'a'.repeat(600 * 1024)}\n`),
    'latin1.test': (req, res) => {
      if (req.url !== '/robots.txt') return void res.end('page');
      res.end(Buffer.from('User-agent: *\nDisallow: /caf\xe9/\n', 'latin1'));
    },
    'utf16.test': (req, res) => {
      if (req.url !== '/robots.txt') return void res.end('page');
      res.end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('User-agent: *\r\nDisallow: /x\r\n', 'utf16le')]));
    },
  });
  raw = net.createServer((s) => {
    s.on('error', () => {});
    let head = '';
    s.on('data', (d) => {
      head += d;
      if (!head.includes('\r\n\r\n')) return;
      const host = /\r\nhost: ([^:\r]+)/i.exec(head)?.[1] ?? '';
      head = '';
      (RAW[host] ?? ((x: net.Socket) => x.destroy()))(s);
    });
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  rawPort = (raw.address() as AddressInfo).port;
});

afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
  await vh?.close();
  await new Promise((r) => raw?.close(r));
});

describe('identity', () => {
  for (const ua of ['Bot/1.0 \u2028', 'Bot/1.0 ツ', 'Bot/1.0 \x01', 'Bot/1.0 \x7f']) {
    it(`${JSON.stringify(ua)} is refused at construction, not sent as a failing header to every site`, () => {
      expect(() => new RobotsGate({ userAgent: ua })).toThrow(InvalidUserAgentError);
      expect(() => new RobotsGate({ userAgent: ua })).toThrow(/HTTP header value/);
    });
  }
  it('Latin-1 text and a tab are valid header characters', async () => {
    const g = newGate({ userAgent: 'Bot/1.0 (caf\u00e9)\t' });
    expect((await g.check(`${vh.origin('creds.test')}/ok`)).reason).toBe('no-matching-rule');
  });
});

describe('options', () => {
  const bad: Record<string, unknown>[] = [
    { timeoutMs: 2 ** 31 }, // Node fires longer timers at once: every fetch would time out, all disallowed
    { maxOrigins: 1e9 }, // the LRU caches allocate their slots up front: out of memory at construction
    { maxOrigins: 1.5 },
    { maxRedirects: 2.5 },
    { override: 'example.com' }, // a string, not a list: must not silently mean no override
    { override: [''] },
  ];
  for (const o of bad) {
    it(`${JSON.stringify(o)} is refused with InvalidOptionError naming it`, () => {
      let err: unknown;
      try {
        new RobotsGate({ userAgent: UA, ...(o as object) });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'ERR_INVALID_OPTION', option: Object.keys(o)[0] });
    });
  }
  it('the largest allowed values are accepted', async () => {
    const g = newGate({ timeoutMs: 2 ** 31 - 1, maxOrigins: 1000, override: ['a.test'] });
    expect(g.isUnderOverride('a.test')).toBe(false);
  });
});

describe('URLs', () => {
  it('credentials in the userinfo never reach the decision or the error message', async () => {
    const g = newGate();
    const url = vh.origin('creds.test').replace('http://', 'http://alice:s3cret@') + '/private/x';
    const d = await g.check(url);
    expect(d.allowed).toBe(false);
    expect(d.url).toBe(`${vh.origin('creds.test')}/private/x`);
    const err = await g.fetch(url).catch((e: Error) => e);
    expect(String((err as Error).message)).not.toContain('s3cret');
    expect(JSON.stringify((err as { decision?: unknown }).decision)).not.toContain('s3cret');
  });
  for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/plain,x', 'mailto:a@b']) {
    it(`${url}: check and fetch reject with UnsupportedSchemeError`, async () => {
      const g = newGate();
      await expect(g.check(url)).rejects.toBeInstanceOf(UnsupportedSchemeError);
      await expect(g.fetch(url)).rejects.toBeInstanceOf(UnsupportedSchemeError);
    });
  }
  it('a megabyte of bad URL is quoted in its error by its first 200 characters and its length', async () => {
    const g = newGate();
    for (const url of ['http://ex ample/' + 'x'.repeat(1_000_000), 'ftp://a.test/' + 'y'.repeat(1_000_000)]) {
      const err = (await g.check(url).catch((e: Error) => e)) as Error;
      expect(err).toBeInstanceOf(TypeError);
      expect(err.message.length).toBeLessThan(400);
      expect(err.message).toContain(`${url.slice(0, 20)}`);
      expect(err.message).toContain(`(${url.length.toLocaleString('en-US')} characters)`);
    }
  });
  for (const url of ['/relative', 'relative', '', 'http://', 'http://h:99999/', 'http://ex ample/']) {
    it(`${JSON.stringify(url)}: TypeError naming it`, async () => {
      await expect(newGate().check(url)).rejects.toThrow(TypeError);
      await expect(newGate().check(url)).rejects.toThrow(JSON.stringify(url));
    });
  }
});

describe('hostile robots.txt servers', () => {
  it('200 KB of headers: unreachable, all disallowed', async () => {
    const d = await newGate().check(`http://headers.test:${rawPort}/a`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
  });
  it('a Content-Length longer than the body: a body cut short, unreachable', async () => {
    const d = await newGate().check(`http://longer.test:${rawPort}/a`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
  });
  it('a 200 that drips a byte every 100 ms: the whole-fetch timeout holds', async () => {
    const started = Date.now();
    const d = await newGate({ timeoutMs: 800 }).check(`http://drip.test:${rawPort}/a`);
    expect(d).toMatchObject({ allowed: false, reason: 'unreachable' });
    expect(d.policy.status).toBe('ETIMEDOUT');
    expect(Date.now() - started).toBeLessThan(4000);
  });
  it('a Location that is no URL: unavailable, as RFC 9309 §2.3.1.2 reads a redirect it cannot follow', async () => {
    const d = await newGate().check(`http://garbage-location.test:${rawPort}/a`);
    expect(['unavailable', 'unreachable']).toContain(d.reason);
  });
  it('a redirect to file: is not followed', async () => {
    const d = await newGate().check(`${vh.origin('to-file.test')}/a`);
    expect(d.reason).toBe('unavailable');
    expect(d.policy.status).toBe(301);
  });
  it('a gzip bomb stops at maxBytes of decoded body', async () => {
    const d = await newGate({ maxBytes: 64 * 1024 }).check(`${vh.origin('bomb.test')}/a`);
    expect(d.policy.status).toBe(200);
    expect(d.policy.truncated).toBe(true);
  });
  it('a 600 KiB line after the rules: the rules before it still apply', async () => {
    const d = await newGate().check(`${vh.origin('oneline.test')}/x`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
  });
  it('a Latin-1 rule blocks the URL carrying its octets (RFC 9309 §2.2.2 compares octets)', async () => {
    const d = await newGate().check(`${vh.origin('latin1.test')}/caf%E9/menu`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
  });
  it('a UTF-16 robots.txt is read as UTF-16', async () => {
    const d = await newGate().check(`${vh.origin('utf16.test')}/x/y`);
    expect(d).toMatchObject({ allowed: false, reason: 'disallowed-by-rule' });
  });
});
