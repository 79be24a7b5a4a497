// No cost of parsing, a first check or linting grows faster than the input (DESIGN.md "Where the
// cost is"): each hostile shape at 1x, 10x and 100x. A quadratic cost (Sitemap lines de-duplicated
// with Array.includes took 1.59 s on 500 KiB) fails these by orders of magnitude.
import { describe, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt } from '../../src/parser/index.js';
import { expectLinearGrowth } from '../helpers/growth.js';

/** A distinct product token for k (letters only). */
const name = (k: number) => 'bot' + k.toString(26).replace(/[0-9]/g, (c) => 'qrstuvwxyz'[Number(c)]!);

function lines(bytes: number, line: (i: number) => string, head = ''): string {
  const out: string[] = [head];
  let size = head.length;
  for (let i = 0; size < bytes; i++) {
    const l = line(i);
    out.push(l);
    size += l.length + 1;
  }
  return out.join('\n');
}

const all = { maxBytes: Infinity };
function parseAndDecide(body: string): void {
  const robots = parseRobotsTxt(body, all);
  robots.check('/a/b/c?x=1', 'Googlebot');
  robots.check('/zz', 'Googlebot');
  void robots.sitemaps.length;
}
function lint(body: string): void {
  lintRobotsTxt(body, all);
}

const shapes: [string, (bytes: number) => string][] = [
  ['distinct Sitemap lines', (b) => lines(b, (i) => `Sitemap: https://example.com/sitemap-${i}.xml`, 'User-agent: *\nDisallow: /x')],
  ['bare sitemap URLs', (b) => lines(b, (i) => `https://example.com/s-${i}.xml`)],
  ['user-agent lines in one group', (b) => lines(b, (i) => `User-agent: ${name(i)}`) + '\nDisallow: /a'],
  ['groups', (b) => lines(b, (i) => `User-agent: ${name(i)}\nDisallow: /p-${i}`, 'User-agent: *\nDisallow: /x')],
  ['rules in one group', (b) => lines(b, (i) => `Disallow: /a/b/${i}`, 'User-agent: *')],
  ['rules sharing a long prefix', (b) => lines(b, (i) => `Disallow: /${'a'.repeat(60)}/${i}`, 'User-agent: *')],
  ['wildcard rules', (b) => lines(b, (i) => `Disallow: /*a*a*a*${i}`, 'User-agent: *')],
  ['nested prefixes', (b) => lines(b, (i) => `${i % 2 ? 'Allow' : 'Disallow'}: /a/${'b'.repeat(i % 400)}`, 'User-agent: *')],
  ['one long rule', (b) => `User-agent: *\nDisallow: /${'a'.repeat(b)}\nAllow: /a`],
  ['invalid lines', (b) => lines(b, (i) => `junk line ${i}`)],
];

describe('linear growth on hostile shapes (1x, 10x, 100x; 5 KB to 500 KB)', () => {
  for (const [shape, build] of shapes) {
    it(`${shape}: parse and first checks`, () => expectLinearGrowth(shape, build, parseAndDecide, 5_000));
    it(`${shape}: lint`, () => expectLinearGrowth(shape, build, lint, 5_000));
  }
});
