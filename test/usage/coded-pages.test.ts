// A page sent gzip-coded though the crawl asked for no coding (no Accept-Encoding): its <meta>
// usage signals were looked for in the compressed octets, so under --purpose ai-train a page that
// reserved training was kept, saved as gzip (found by a tester). The crawl now reads what the
// server meant: decoded, as gate.fetch's fetch() decodes it. The CLI as a subprocess.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect, it } from 'vitest';
import { openAudit } from '../../src/audit/index.js';
import { crawlFixture } from '../cli/crawl-fixture.js';
import { runCli } from '../cli/run-cli.js';
import type { HostHandler } from '../helpers/hosts.js';

const f = crawlFixture('rg-coded-');
const UA = 'Mozilla/5.0 (compatible; CodedBot/1.0; +https://bot.example/about)';
const RESERVED = '<html><head><meta name="robots" content="noai"><meta name="tdm-reservation" content="1"></head><body>mine</body></html>';
const OPEN = '<html><head><title>open</title></head><body>free to read</body></html>';

const site: HostHandler = (req, res) => {
  if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
  const html = req.url!.startsWith('/reserved') ? RESERVED : OPEN;
  if (req.url!.endsWith('-gz')) return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(zlib.gzipSync(html));
  if (req.url!.endsWith('-br')) return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' }).end(zlib.brotliCompressSync(html));
  if (req.url!.endsWith('-bad')) return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end('not gzip at all');
  res.writeHead(200, { 'content-type': 'text/html' }).end(html);
};

it('--purpose ai-train: a gzip- or br-coded page that reserves training is fetched and not kept; an open one is kept decoded', async () => {
  const v = await f.hosts({ 'coded.test': site });
  const dir = f.tmp();
  const out = path.join(dir, 'out');
  const paths = ['/reserved-gz', '/reserved-br', '/reserved-plain', '/open-gz', '/open-bad'];
  const list = path.join(dir, 'urls.txt');
  fs.writeFileSync(list, paths.map((p) => `${v.origin('coded.test')}${p}`).join('\n') + '\n');
  const r = await runCli(['crawl', list, '--user-agent', UA, '--out', out, '--min-interval', '0', '--purpose', 'ai-train', ...f.resolveArgs(v)], { timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(1); // the corrupt one is an error
  const audit = openAudit(out);
  const rows = audit.attempts();
  audit.close();
  const row = (p: string) => rows.find((x) => x.url.endsWith(p))!;
  for (const p of ['/reserved-gz', '/reserved-br', '/reserved-plain']) {
    expect(row(p), p).toMatchObject({ outcome: 'fetched', reason: 'usage-reserved', savedPath: null });
  }
  const open = row('/open-gz');
  expect(open).toMatchObject({ outcome: 'fetched', status: 200 });
  expect(fs.readFileSync(path.join(out, open.savedPath!), 'utf8')).toBe(OPEN);
  expect(open.bytes).toBe(Buffer.byteLength(OPEN));
  expect(row('/open-bad')).toMatchObject({ outcome: 'error', savedPath: null });
  expect(row('/open-bad').error).toMatch(/could not be decoded \(Content-Encoding: gzip\)/);
});
