// Many wildcard rules under one literal start (`Disallow: /*aaa<N>z` × 20,000, 440 KB) against a
// long path of `a`s: each of a policy's first checks scanned every rule in place, costing rules ×
// path length (770 ms a check at 8,000 characters), and the index, once built, kept every rule in
// the bucket of its first trigram, `aaa`, so the path tried them all again (found by a tester).
// Scaled together (rules and path 10x and 100x), the costs must grow linearly, not as their product.
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';
import { expectLinearGrowth } from '../helpers/growth.js';

const file = (rules: number) => {
  let t = 'User-agent: *\n';
  for (let i = 0; i < rules; i++) t += `Disallow: /*aaa${i}z\n`;
  return t;
};

describe('wildcard rules sharing a start', () => {
  it('parse and 30 checks of a path of a\'s grow linearly with rules and path together', () => {
    expectLinearGrowth(
      'rules x path',
      (n) => ({ text: file(n), url: `https://e.test/${'a'.repeat(n / 10)}` }),
      ({ text, url }) => {
        const r = parseRobotsTxt(text);
        for (let k = 0; k < 30; k++) r.isAllowed(`${url}${k}`, 'Bot');
      },
      300,
    );
  });

  it('decides as before: the rule whose pieces occur, and nothing for a path of a\'s alone', () => {
    const r = parseRobotsTxt(file(20_000)); // 440 KB: under the 500 KiB that is read
    for (let k = 0; k < 30; k++) expect(r.isAllowed(`https://e.test/${'a'.repeat(8_000)}${k}`, 'Bot')).toBe(true);
    expect(r.check('https://e.test/xaaa12345z/y', 'Bot')).toMatchObject({ allowed: false, rule: { line: 12_347 } });
    expect(r.check('https://e.test/aaa19999zz', 'Bot')).toMatchObject({ allowed: false, rule: { line: 20_001 } });
  });
});
