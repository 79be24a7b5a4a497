// A broad crawl holds no idle connection for a host it has finished: the host's last URL is sent
// with `connection: close`, its earlier ones keep the connection for the next (measured at the server).
// And it holds one connection per host, robots.txt's and the pages' alike.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from '../cli/run-cli.js';
import { crawlFixture } from '../cli/crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-broad-conn-');

describe('connections of a finished host', () => {
  it("a host's last URL closes its connection; the URLs before it keep theirs alive", async () => {
    const seen: { host: string; path: string; connection: string | undefined }[] = [];
    const a = site('User-agent: *\nAllow: /\n');
    const log = (host: string) => (req: Parameters<typeof a>[0], res: Parameters<typeof a>[1]) => {
      seen.push({ host, path: req.url ?? '', connection: req.headers.connection });
      return a(req, res);
    };
    const v = await hosts({ 'a.test': log('a.test'), 'b.test': log('b.test') });
    const list = ['a.test', 'b.test'].flatMap((h) => [1, 2, 3].map((i) => `${v.origin(h)}/p${i}`)).join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', 'TestBot/1.0', '--out', path.join(tmp(), 'out'), '--min-interval', '0', ...resolveArgs(v)], { stdin: list });
    expect(r.code).toBe(0);
    for (const host of ['a.test', 'b.test']) {
      const pages = seen.filter((s) => s.host === host && s.path !== '/robots.txt');
      expect(pages.map((s) => s.path)).toEqual(['/p1', '/p2', '/p3']);
      expect(pages.map((s) => s.connection)).toEqual(['keep-alive', 'keep-alive', 'close']);
    }
  });

  it('robots.txt and the pages of a host go over one connection (none opened while another sits idle)', async () => {
    // Without a per-origin limit, undici opened a second socket for a page request sent while the
    // robots.txt response was still being finished: 45 % of hosts had two, one of them idle.
    const sockets = new Map<string, Set<unknown>>();
    const a = site('User-agent: *\nAllow: /\n');
    const names = Array.from({ length: 40 }, (_, i) => `h${i}.test`);
    const handlers = Object.fromEntries(
      names.map((h) => [
        h,
        (req: Parameters<typeof a>[0], res: Parameters<typeof a>[1]) => {
          let set = sockets.get(h);
          if (!set) sockets.set(h, (set = new Set()));
          set.add(req.socket);
          return a(req, res);
        },
      ]),
    );
    const v = await hosts(handlers);
    const list = [1, 2, 3].flatMap((i) => names.map((h) => `${v.origin(h)}/p${i}`)).join('\n') + '\n';
    const r = await runCli(['crawl', '-', '--user-agent', 'TestBot/1.0', '--out', path.join(tmp(), 'out'), '--min-interval', '0', ...resolveArgs(v)], { stdin: list });
    expect(r.code).toBe(0);
    const twice = names.filter((h) => (sockets.get(h)?.size ?? 0) !== 1);
    expect(twice).toEqual([]);
  });
});
