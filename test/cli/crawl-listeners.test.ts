// `robots-gate crawl` at its default concurrency: every request in flight and every wait for a slot
// listens on the run's signal, and Node must not take that for a leak (a warning on stderr).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { site } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-crawl-listeners-');

describe('robots-gate crawl at the default concurrency', () => {
  it('sends 16 requests at once over 40 hosts without a MaxListenersExceededWarning', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `h${i}.test`);
    const v = await hosts(Object.fromEntries(names.map((h) => [h, site('User-agent: *\nDisallow: /private\n')])));
    const dir = tmp();
    const list = path.join(dir, 'urls.txt');
    fs.writeFileSync(list, names.flatMap((h) => [`${v.origin(h)}/a`, `${v.origin(h)}/b`]).join('\n') + '\n');
    const r = await runCli(['crawl', list, '--user-agent', 'Mozilla/5.0 (compatible; MyBot/1.0; +https://example.com/bot)', '--out', path.join(dir, 'out'), '--min-interval', '50', ...resolveArgs(v)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fetched\s+80/);
    expect(r.stderr).not.toMatch(/MaxListenersExceededWarning/);
  });
});
