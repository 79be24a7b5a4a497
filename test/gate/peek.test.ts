// gate.peek: a decision from what the gate holds, never a fetch.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RobotsGate } from '../../src/gate/index.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

let s: VirtualHosts;
beforeAll(async () => {
  s = await startVirtualHosts({ '127.0.0.1': site('User-agent: *\nDisallow: /private/\n') });
});
afterAll(() => s?.close());

test('undefined (and no request) while the origin is unknown; the same decision as check once it is', async () => {
  const gate = new RobotsGate({ userAgent: 'PeekBot/1.0' });
  const url = `${s.origin('127.0.0.1')}/private/x?q=1#frag`;
  expect(gate.peek(url)).toBeUndefined();
  expect(s.log).toHaveLength(0);
  const checked = await gate.check(url);
  const peeked = gate.peek(url);
  expect(peeked).toMatchObject({ allowed: false, url: checked.url, rule: { line: 2 }, policy: checked.policy });
  expect(gate.peek(`${s.origin('127.0.0.1')}/public`)?.allowed).toBe(true);
  expect(gate.peek('not a url')).toBeUndefined();
  expect(gate.peek('ftp://x/')).toBeUndefined();
  expect(s.log).toHaveLength(1);
  await gate.close();
});

test('an exempt URL: the exempt decision check gives, without robots.txt', async () => {
  const origin = s.origin('127.0.0.1');
  const gate = new RobotsGate({ userAgent: 'PeekBot/1.0', exempt: [origin] });
  const before = s.log.length;
  expect(gate.peek(`${origin}/private/x`)).toMatchObject({ allowed: true, reason: 'exempt', url: `${origin}/private/x` });
  expect(gate.peek(`${origin}/private/x`)).toMatchObject({ reason: (await gate.check(`${origin}/private/x`)).reason });
  expect(s.log.length).toBe(before);
  await gate.close();
});

test('a URL string decides as its URL object does, canonical or not (the string fast path agrees with new URL)', async () => {
  const gate = new RobotsGate({ userAgent: 'PeekBot/1.0' });
  const o = s.origin('127.0.0.1');
  await gate.check(`${o}/`);
  const paths = ['/private/x', '/private/%7Ex', '/private/~x', '/Private/x', '/private', '/private/', '/a/../private/x', '/private/x?q=%2F', '/%70rivate/x', '/private/x#f', '/private/ä', '/private/%C3%A4'];
  for (const p of paths) {
    for (const u of [`${o}${p}`, `${o.replace('http://', 'HTTP://')}${p}`]) {
      const fromString = gate.peek(u);
      const fromObject = gate.peek(new URL(u));
      expect([u, fromString?.allowed, fromString?.url, fromString?.rule?.line]).toEqual([u, fromObject?.allowed, fromObject?.url, fromObject?.rule?.line]);
    }
  }
  await gate.close();
});
