// Many User-Agent strings against one parsed file (a proxy checking its clients' agents, or an
// attacker choosing them): memory stays bounded, and each name still gets its own groups.
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';

/** A distinct, valid product token for k (letters only). */
const name = (k: number) => 'Bot' + k.toString(26).replace(/[0-9]/g, (c) => 'qrstuvwxyz'[Number(c)]!);

describe('many user agents', () => {
  it('names no group names share the * policy: 300 of them on a 500 KiB file cost no new index each', () => {
    let body = 'User-agent: *\n';
    for (let i = 0; body.length < 500 * 1024; i++) body += `Disallow: /*a*a*a*a*a*a*b${i.toString(36)}\n`;
    const robots = parseRobotsTxt(body);
    expect(robots.isAllowed('/x', 'Bot/1.0')).toBe(true);
    const before = process.memoryUsage().heapUsed;
    for (let k = 0; k < 300; k++) {
      expect(robots.check('/aaaaaaab0', `${name(k)}/1.0`).allowed).toBe(false);
    }
    // Each compiled index of this file is about its size: 300 of them would be over 100 MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(40 * 1024 * 1024);
  });

  it('20,000 groups each naming its own token: every name gets its group, none another\'s', () => {
    let body = '';
    const n = 20_000;
    for (let i = 0; i < n; i++) body += `User-agent: ${name(i)}\nDisallow: /only-${i}\n`;
    const robots = parseRobotsTxt(body, { maxBytes: 10 * 1024 * 1024 });
    for (let i = 0; i < n; i += 97) {
      expect(robots.isAllowed(`/only-${i}`, name(i))).toBe(false);
      expect(robots.isAllowed(`/only-${i + 1}`, name(i))).toBe(true);
      expect(robots.check('/x', name(i)).group?.lines).toEqual([2 * i + 1]);
    }
    expect(robots.check('/only-1', 'Unnamed').group).toBeNull();
  });

  it('a token named by a group twice and by a later group merges both, with the first line of each', () => {
    const robots = parseRobotsTxt('User-agent: a\nUser-agent: A\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: a\nDisallow: /z\n');
    expect(robots.check('/z', 'a').group).toEqual({ userAgents: ['a', 'a'], lines: [1, 8] });
    expect(robots.isAllowed('/x', 'A')).toBe(false);
    expect(robots.isAllowed('/y', 'a')).toBe(true);
  });
});
