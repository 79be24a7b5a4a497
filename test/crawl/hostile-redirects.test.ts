// Hostile Location headers: the crawl follows only what it may, as requests of their own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-redirects-'));
let v: VirtualHosts;
beforeAll(async () => {
  assertBuilt();
  v = await startVirtualHosts({
    'r.test': (req, res) => {
      const o = `http://r.test:${v.port}`;
      const to: Record<string, string> = {
        '/cred': `http://user:pw@r.test:${v.port}/target`,
        '/js': 'javascript:alert(1)',
        '/file': 'file:///etc/passwd',
        '/bad': 'http://[oops',
        '/self': `${o}/self`,
      };
      if (req.url === '/robots.txt') return void res.writeHead(200).end('User-agent: *\nAllow: /\n');
      if (req.url! in to) return void res.writeHead(302, { location: to[req.url!]! }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`auth=${req.headers.authorization ?? 'none'}`);
    },
  });
});
afterAll(async () => {
  await v.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('hostile redirects', () => {
  it('a Location with credentials is followed without them; other schemes, bad URLs and self-loops end at the 3xx row', async () => {
    const out = path.join(dir, 'out');
    const list = ['/cred', '/js', '/file', '/bad', '/self'].map((p) => `${v.origin('r.test')}${p}`).join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', 'T', '--out', out, '--min-interval', '0', '--resolve', v.resolve[0]!], { stdin: list });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    const a = openAudit(out);
    const rows = a.attempts();
    a.close();
    const target = rows.find((x) => x.url.endsWith('/target'))!;
    expect(target).toMatchObject({ url: `${v.origin('r.test')}/target`, outcome: 'fetched', status: 200, kind: 'redirect' });
    expect(fs.readFileSync(path.join(out, target.savedPath!), 'utf8')).toBe('auth=none');
    expect(rows.some((x) => x.url.includes('pw@'))).toBe(false);
    // Nothing but the list and the one target was requested.
    expect(v.requests('r.test').filter((q) => q.path !== '/robots.txt').map((q) => q.path).sort()).toEqual(['/bad', '/cred', '/file', '/js', '/self', '/target']);
  });
});
