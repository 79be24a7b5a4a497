import { describe, expect, it } from 'vitest';
import { OriginCache } from '../../src/gate/origin-cache.js';

describe('OriginCache', () => {
  it('holds at most max origins, the least recently used leaving first', () => {
    const c = new OriginCache<number>(4);
    for (let i = 0; i < 4; i++) c.set(`o${i}`, i);
    // o0 is asked while half the cache has come in after it: it moves to the back.
    c.set('o1', 11);
    c.set('o2', 12);
    c.set('o3', 13);
    expect(c.get('o0')).toBe(0);
    c.set('o4', 4);
    expect(c.peek('o1')).toBeUndefined();
    expect([c.peek('o0'), c.peek('o2'), c.peek('o3'), c.peek('o4')]).toEqual([0, 12, 13, 4]);
    c.set('o5', 5);
    expect(c.peek('o2')).toBeUndefined();
    expect(c.peek('o0')).toBe(0);
  });

  it('keeps an origin asked all along through any number of others, and replaces a value in place', () => {
    const c = new OriginCache<string>(100);
    c.set('hot', 'a');
    for (let i = 0; i < 10_000; i++) {
      c.set(`cold${i}`, 'x');
      expect(c.get('hot')).toBe('a');
    }
    c.set('hot', 'b');
    expect(c.get('hot')).toBe('b');
    expect(c.peek(`cold${10_000 - 99}`)).toBe('x');
    expect(c.peek(`cold${10_000 - 100}`)).toBeUndefined();
    c.clear();
    expect(c.peek('hot')).toBeUndefined();
  });
});
