// A Location field in raw UTF-8 (`Location: /café`, not `/caf%C3%A9`), as real servers send it:
// undici hands header values over as Latin-1, so read as they came the target would be
// `/caf%C3%83%C2%A9`, a page the server never named. Browsers and fetch() read the field as
// UTF-8; every door here does too. Each server records the path it was asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/crawl/http-transport.js';
import { createResolvingAgent } from '../../src/fetcher/resolving-agent.js';
import { fetchRobotsTxt } from '../../src/fetcher/robots-fetcher.js';
import { locationAsSent } from '../../src/fetcher/url.js';
import { RobotsGate } from '../../src/gate/gate.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `text` as its UTF-8 octets, one character each: what Node writes as those raw octets. */
const rawUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({
    'utf8.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(301, { location: rawUtf8('/règles.txt') }).end();
      if (req.url === '/r%C3%A8gles.txt') return void res.end('User-agent: *\nDisallow: /caf%C3%A9/secret\n');
      if (req.url === '/old') return void res.writeHead(301, { location: rawUtf8('/café/ok') }).end();
      if (req.url === '/to-secret') return void res.writeHead(301, { location: rawUtf8('/café/secret') }).end();
      // One octet E9 alone is no UTF-8: kept as it came.
      if (req.url === '/latin1') return void res.writeHead(301, { location: '/caf\u00e9/x' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    },
  });
});
afterAll(() => v.close());

describe('a raw UTF-8 Location', () => {
  it('is read as UTF-8; one that is not valid UTF-8 is kept as it came', () => {
    expect(locationAsSent(rawUtf8('/café?q=ü'))).toBe('/café?q=ü');
    expect(locationAsSent('/plain')).toBe('/plain');
    expect(locationAsSent('/caf\u00e9')).toBe('/caf\u00e9');
    expect(locationAsSent('/\u20ac')).toBe('/\u20ac');
  });

  it('robots.txt: the redirect reaches the file the server named, and its rules apply', async () => {
    const dispatcher = createResolvingAgent(v.resolve);
    try {
      const r = await fetchRobotsTxt(v.origin('utf8.test'), { dispatcher, userAgent: 'Utf8Bot/1.0', timeoutMs: 5_000, maxBytes: 100_000, maxRedirects: 5 });
      expect(r).toMatchObject({ kind: 'parsed', status: 200, finalUrl: `${v.origin('utf8.test')}/r%C3%A8gles.txt` });
    } finally {
      await dispatcher.destroy();
    }
  });

  it('gate.fetch follows it to /caf%C3%A9/ok, and refuses a hop into a disallowed /café/secret', async () => {
    const gate = new RobotsGate({ userAgent: 'Utf8Bot/1.0', resolve: v.resolve, minIntervalMs: 0 });
    try {
      const res = await gate.fetch(`${v.origin('utf8.test')}/old`);
      expect(res.status).toBe(200);
      await res.text();
      expect(v.requests('utf8.test').map((q) => q.path)).toContain('/caf%C3%A9/ok');
      await expect(gate.fetch(`${v.origin('utf8.test')}/to-secret`)).rejects.toMatchObject({ code: 'ERR_ROBOTS_BLOCKED' });
      expect(v.requests('utf8.test').map((q) => q.path)).not.toContain('/caf%C3%A9/secret');
    } finally {
      await gate.close();
    }
  });

  it("the crawl's transport records the target the server named", async () => {
    const gate = new RobotsGate({ userAgent: 'Utf8Bot/1.0', resolve: v.resolve, minIntervalMs: 0 });
    const dispatcher = createResolvingAgent(v.resolve);
    const transport = new HttpTransport({ gate, dispatcher, followRedirects: false, userAgent: gate.userAgent, timeoutMs: 5_000 });
    try {
      const fetch = async (url: string) => transport.fetch(url, { decision: await gate.check(url), slotHeld: true });
      const r = await fetch(`${v.origin('utf8.test')}/old`);
      expect(r.redirectTo).toBe(`${v.origin('utf8.test')}/caf%C3%A9/ok`);
      expect(r.hops[0]!.headers.location).toBe('/café/ok');
      expect((await fetch(`${v.origin('utf8.test')}/latin1`)).redirectTo).toBe(`${v.origin('utf8.test')}/caf%C3%A9/x`);
    } finally {
      await Promise.all([gate.close(), dispatcher.destroy()]);
    }
  });

  it('robots-gate crawl fetches the redirect target at its UTF-8 path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-utf8-loc-'));
    try {
      const list = path.join(dir, 'urls.txt');
      fs.writeFileSync(list, `${v.origin('utf8.test')}/old\n`);
      const r = await runCli(['crawl', list, '--user-agent', 'Utf8Bot/1.0 (+https://bot.example)', '--out', path.join(dir, 'out'), '--min-interval', '0', ...v.resolve.flatMap((e) => ['--resolve', e])]);
      expect(r.code, r.stderr).toBe(0);
      expect(v.requests('utf8.test').filter((q) => q.userAgent?.startsWith('Utf8Bot')).map((q) => q.path)).toContain('/caf%C3%A9/ok');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
