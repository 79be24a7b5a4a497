// The fetcher on its own: the resolving Agent, and what a fetch result records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import { request } from 'undici';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { createResolvingAgent, parseResolveEntries } from '../../src/fetcher/resolving-agent.js';
import { fetchRobotsTxt } from '../../src/fetcher/robots-fetcher.js';
import { InvalidResolveEntryError } from '../../src/fetcher/errors.js';

const RULES = 'User-agent: *\nDisallow: /x\n';
let vh: VirtualHosts;
let agent: ReturnType<typeof createResolvingAgent>;

beforeAll(async () => {
  vh = await startVirtualHosts({
    'one.test': (req, res) => void res.writeHead(200).end(`one ${req.headers.host}`),
    'br.test': (_req, res) => void res.writeHead(200, { 'content-encoding': 'br', 'cache-control': 'max-age=60' }).end(zlib.brotliCompressSync(RULES)),
    'deflate.test': (_req, res) => void res.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateSync(RULES)),
    'badgzip.test': (_req, res) => void res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('this is not gzip at all')),
    'cutgzip.test': (_req, res) => void res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(RULES.repeat(50)).subarray(0, 40)),
    'zstd.test': (_req, res) => void res.writeHead(200, { 'content-encoding': 'zstd' }).end('xx'),
    'garbage.test': (_req, res) => void res.writeHead(200).end(Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a, 0x44, 0x69, 0x73])),
    'long.test': (_req, res) => void res.writeHead(200).end('User-agent: *\nDisallow: /aaaa\nDisallow: /bbbbbbbbbb\n'),
    'nowhere.test': (_req, res) => void res.writeHead(302).end(),
    'ftp.test': (_req, res) => void res.writeHead(301, { location: 'ftp://x.test/robots.txt' }).end(),
    // Plain bodies (no Content-Encoding) that do not arrive whole: cut by the server, or stalled.
    'cut.test': (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('User-agent: *\nDisallow: /private\n');
      setTimeout(() => res.socket?.destroy(), 50);
    },
    'stall.test': (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('User-agent: *\nDisallow: /private\n');
    },
  });
  agent = createResolvingAgent(vh.resolve);
});
afterAll(async () => {
  await agent?.close();
  await vh?.close();
});

const fetchOpts = () => ({ dispatcher: agent, userAgent: 'T/1', timeoutMs: 500, maxBytes: 512_000, maxRedirects: 5 });

describe('createResolvingAgent', () => {
  it('connects HOST:PORT to ADDR, keeping the Host header', async () => {
    const res = await request(`${vh.origin('one.test')}/`, { dispatcher: agent });
    expect(await res.body.text()).toBe(`one one.test:${vh.port}`);
  });

  it('parses curl entries and names a bad one', () => {
    expect([...parseResolveEntries(['Ex.COM:443:127.0.0.1,[::1]']).entries()]).toEqual([['ex.com:443', ['127.0.0.1', '::1']]]);
    expect([...parseResolveEntries(['+ex.com:80:127.0.0.1']).keys()]).toEqual(['ex.com:80']);
    expect(() => parseResolveEntries(['ex.com:443'])).toThrow(InvalidResolveEntryError);
    expect(() => parseResolveEntries(['ex.com:99999:127.0.0.1'])).toThrow(/out of range/);
    expect(() => parseResolveEntries(['ex.com:80:localhost'])).toThrow(/not an IP address/);
    // curl's wildcard and removal entries matched no request: taken silently, they did nothing.
    expect(() => parseResolveEntries(['*:80:127.0.0.1'])).toThrow(/wildcard host \* is not supported/);
    expect(() => parseResolveEntries(['-ex.com:80'])).toThrow(/curl's removal form/);
    expect(() => parseResolveEntries(['-ex.com:80:127.0.0.1'])).toThrow(/curl's removal form/);
  });
});

describe('fetchRobotsTxt', () => {
  it('decodes br and deflate; reads Cache-Control max-age', async () => {
    const br = await fetchRobotsTxt(vh.origin('br.test'), fetchOpts());
    expect(br).toMatchObject({ kind: 'parsed', status: 200, maxAgeMs: 60_000 });
    expect(br.bytes!.toString()).toBe(RULES);
    const deflate = await fetchRobotsTxt(vh.origin('deflate.test'), fetchOpts());
    expect(deflate.bytes!.toString()).toBe(RULES);
  });

  it('a body that cannot be decoded is unreachable, not missing', async () => {
    for (const host of ['badgzip.test', 'cutgzip.test', 'zstd.test']) {
      const r = await fetchRobotsTxt(vh.origin(host), fetchOpts());
      expect(r.kind, host).toBe('unreachable');
      expect(typeof r.status, host).toBe('string');
    }
  });

  it('garbage bytes are a file (the parser decides what they mean), hashed as received', async () => {
    const r = await fetchRobotsTxt(vh.origin('garbage.test'), fetchOpts());
    expect(r.kind).toBe('parsed');
    expect(r.bytes).toHaveLength(8);
  });

  it('a plain body cut short, stalled or given up on mid-read is unreachable, never the part that came', async () => {
    const cut = await fetchRobotsTxt(vh.origin('cut.test'), fetchOpts());
    expect(cut).toMatchObject({ kind: 'unreachable', sha256: null });
    expect(typeof cut.status).toBe('string');
    const stalled = await fetchRobotsTxt(vh.origin('stall.test'), fetchOpts());
    expect(stalled).toMatchObject({ kind: 'unreachable', status: 'ETIMEDOUT' });
    const outer = new AbortController();
    setTimeout(() => outer.abort(), 100);
    const dropped = await fetchRobotsTxt(vh.origin('stall.test'), { ...fetchOpts(), timeoutMs: 5_000, signal: outer.signal });
    expect(dropped).toMatchObject({ kind: 'unreachable', sha256: null });
    expect(dropped.status).not.toBe('ETIMEDOUT');
  });

  it('a truncated body is cut back to its last line break', async () => {
    const r = await fetchRobotsTxt(vh.origin('long.test'), { ...fetchOpts(), maxBytes: 35 });
    expect(r).toMatchObject({ kind: 'parsed', truncated: true });
    expect(r.bytes!.toString()).toBe('User-agent: *\nDisallow: /aaaa\n');
  });

  it('a redirect without a usable Location is unavailable', async () => {
    expect(await fetchRobotsTxt(vh.origin('nowhere.test'), fetchOpts())).toMatchObject({ kind: 'unavailable', status: 302 });
    expect(await fetchRobotsTxt(vh.origin('ftp.test'), fetchOpts())).toMatchObject({ kind: 'unavailable', status: 301 });
  });
});
