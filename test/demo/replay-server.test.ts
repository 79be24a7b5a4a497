// The replay server answers, by Host header, with each example's exact robots.txt bytes and with a
// generated page for every other path; and the examples are the varied real set the issue asks for.
import http from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExamples, start, type Example, type Replay } from '../../scripts/replay-server.mjs';

function get(port: number, host: string, path: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { host: `${host}:${port}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }),
      );
    });
    req.once('error', reject);
  });
}

let examples: Example[];
let replay: Replay;
beforeAll(async () => {
  examples = loadExamples();
  replay = await start(0, { examples });
});
afterAll(() => replay?.close());

describe('examples', () => {
  it('holds at least 50 real files, one per host, under 3 MB in total', () => {
    expect(examples.length).toBeGreaterThanOrEqual(50);
    expect(new Set(examples.map((e) => e.host)).size).toBe(examples.length);
    expect(examples.reduce((n, e) => n + e.bytes.length, 0)).toBeLessThan(3_000_000);
    for (const e of examples) expect(e.why.length, e.file).toBeGreaterThan(0);
  });

  it('covers the odd encodings, line ends and bodies real servers send', () => {
    const has = (f: (b: Buffer) => boolean) => examples.filter((e) => f(e.bytes)).map((e) => e.host);
    expect(has((b) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf)).not.toEqual([]); // UTF-8 BOM
    expect(has((b) => b[0] === 0xff && b[1] === 0xfe)).not.toEqual([]); // UTF-16LE
    expect(has((b) => b.includes('\r\n'))).not.toEqual([]); // CRLF
    expect(has((b) => b.includes('\r') && !b.includes('\r\n') && !b.includes('\n'))).not.toEqual([]); // CR only
    const invalidUtf8 = has((b) => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(b);
        return false;
      } catch {
        return true;
      }
    });
    expect(invalidUtf8.length).toBeGreaterThanOrEqual(2);
    expect(has((b) => /<html/i.test(b.toString('latin1')))).not.toEqual([]);
    expect(has((b) => b.length === 0)).not.toEqual([]);
    expect(has((b) => b.length > 100_000).length).toBeGreaterThanOrEqual(2);
    expect(has((b) => /^\s*crawl-delay\s*:\s*(6[1-9]|[7-9]\d|\d{3,})/im.test(b.toString('latin1')))).not.toEqual([]);
    expect(has((b) => /^\s*disallow\s*:\s*\S*\*\S*\$/im.test(b.toString('latin1')))).not.toEqual([]);
    for (const famous of ['wikipedia.org', 'github.com', 'google.com', 'nytimes.com', 'irs.gov']) {
      expect(examples.map((e) => e.host)).toContain(famous);
    }
  });

  const corpus = '/work/shared/corpus/robots';
  it.skipIf(!existsSync(corpus))('are byte-exact copies of the corpus files the manifest names', () => {
    const manifest = readFileSync(new URL('../../examples/MANIFEST.tsv', import.meta.url), 'utf8').trim().split('\n');
    const cols = manifest[0].split('\t');
    for (const line of manifest.slice(1)) {
      const cell = line.split('\t');
      const file = cell[cols.indexOf('file')];
      const source = readFileSync(`${corpus}/${cell[cols.indexOf('corpus_file')]}`);
      expect(examples.find((e) => e.file === file)?.bytes.equals(source), file).toBe(true);
    }
  });
});

describe('replay server', () => {
  it("serves each example's exact bytes at /robots.txt for its host name", async () => {
    for (const e of examples) {
      const res = await get(replay.port, e.host, '/robots.txt');
      expect(res.status, e.host).toBe(200);
      expect(res.body.equals(e.bytes), `${e.host}: bytes differ`).toBe(true);
    }
  });

  it('serves a small HTML page for every other path, and 421 for hosts it does not replay', async () => {
    const page = await get(replay.port, 'wikipedia.org', '/wiki/Special:Search?q=%C3%A9t%C3%A9');
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body.toString()).toContain('wikipedia.org/wiki/Special:Search?q=%C3%A9t%C3%A9');
    const stranger = await get(replay.port, 'not-replayed.example', '/robots.txt');
    expect(stranger.status).toBe(421);
    const logged = replay.log.filter((r) => r.host === 'wikipedia.org' && r.path.startsWith('/wiki/'));
    expect(logged).toHaveLength(1);
    expect(logged[0].status).toBe(200);
  });

  it('answers only for the hosts asked for, and says so for an unknown one', async () => {
    const few = await start(0, { examples, hosts: ['github.com', 'reddit.com'] });
    try {
      expect(few.resolveArgs).toEqual([
        '--resolve',
        `github.com:${few.port}:127.0.0.1`,
        '--resolve',
        `reddit.com:${few.port}:127.0.0.1`,
      ]);
      expect((await get(few.port, 'google.com', '/robots.txt')).status).toBe(421);
    } finally {
      await few.close();
    }
    await expect(start(0, { examples, hosts: ['nowhere.example'] })).rejects.toThrow(/nowhere\.example/);
  });
});
