// A site that answers every path with a page serves one for robots.txt too. Read as RFC 9309 asks,
// it yields no rule: check and explain said "allowed, no-matching-rule" and nothing else, which
// reads like a permissive file (found by a new user). Both now say what the file looked like.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { runCli } from './run-cli.js';

let v: VirtualHosts;
beforeAll(async () => {
  v = await startVirtualHosts({
    'page.test': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>Shop</title></head><body>Welcome</body></html>'),
    'plain.test': site('User-agent: *\nAllow: /\n'),
  });
});
afterAll(() => v.close());

const resolve = () => v.resolve.flatMap((e) => ['--resolve', e]);
const UA = 'Mozilla/5.0 (compatible; MyBot/1.0; +https://example.com/bot)';

it('check warns on stderr (and in --json) that the robots.txt was an HTML page', async () => {
  const r = await runCli(['check', `${v.origin('page.test')}/x`, '--user-agent', UA, ...resolve()]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^allowed .* no-matching-rule/);
  expect(r.stderr).toContain(`warning: ${v.origin('page.test')}/robots.txt looks like an HTML page, not a robots.txt file`);
  const j = await runCli(['check', `${v.origin('page.test')}/x`, '--user-agent', UA, '--json', ...resolve()]);
  expect(JSON.parse(j.stdout).warnings[0]).toMatch(/looks like an HTML page/);
  const plain = await runCli(['check', `${v.origin('plain.test')}/x`, '--user-agent', UA, ...resolve()]);
  expect(plain.stderr).not.toMatch(/HTML/);
});

it('explain says it beside the product token', async () => {
  const r = await runCli(['explain', `${v.origin('page.test')}/x`, '--user-agent', UA, ...resolve()]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/Warning: http:\/\/page\.test:\d+\/robots\.txt looks like an HTML page/);
});
