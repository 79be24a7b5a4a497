import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemoryPolicyStore } from '../../src/stores/memory-policy-store.js';
import type { PolicyRecord } from '../../src/stores/types.js';

const record = (origin: string, body: string | undefined): PolicyRecord => ({
  origin,
  robotsUrl: `${origin}/robots.txt`,
  finalUrl: `${origin}/robots.txt`,
  status: 200,
  kind: 'parsed',
  ...(body === undefined ? {} : { body }),
  sha256: 'ab'.repeat(32),
  fetchedAt: 1,
  expiresAt: 2,
});

describe('MemoryPolicyStore', () => {
  it('gives back every body exactly as it was set: BOM, characters past U+00FF, lone surrogates, long or short, none', async () => {
    const store = new MemoryPolicyStore();
    const long = 'User-agent: *\nDisallow: /private/\n'.repeat(20);
    const bodies = [
      '\uFEFF' + long + '# Zugriff – außer für 検索\nDisallow: /путь\n',
      long + '# emoji 🤖 and a lone surrogate \uD800 here\n',
      long + '# Latin-1 only: café\n',
      'User-agent: *\nDisallow: /–\n',
      // Long enough to be kept deflated.
      '\uFEFF' + long.repeat(20) + '# 検索 – außer\n',
      long.repeat(20) + '# café\n',
      long.repeat(20) + '# lone \uDC00 surrogate\n',
      '',
      undefined,
    ];
    for (const [i, body] of bodies.entries()) await store.set(record(`https://h${i}.example`, body));
    for (const [i, body] of bodies.entries()) {
      const got = await store.get(`https://h${i}.example`);
      expect(got).toEqual(record(`https://h${i}.example`, body));
      expect(got?.body).toBe(body);
    }
    const loaded = await store.singleFlight('https://sf.example', async () => record('https://sf.example', bodies[0]), 1000);
    expect(loaded.body).toBe(bodies[0]);
    expect((await store.get('https://sf.example'))?.body).toBe(bodies[0]);
  });

  it('keeps a long body in much less than its size, and a short one with characters past U+00FF in about its UTF-8 size', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const n = 2_000;
    const text = (i: number) => `# Zugriff – ${i}\n` + 'User-agent: *\nDisallow: /private/path/\n'.repeat(100);
    const utf8 = new TextEncoder().encode(text(0)).length;
    const store = new MemoryPolicyStore({ maxOrigins: n });
    const before = heap();
    // Each body a flat string decoded from its own octets, as each fetch decodes its own (a string
    // built with + would be a rope of a short two-byte piece and a long one-byte one).
    const decoder = new TextDecoder();
    for (let i = 0; i < n; i++) await store.set(record(`https://h${i}.example`, decoder.decode(new TextEncoder().encode(text(i)))));
    const perRecord = (heap() - before) / n;
    // As a two-byte string the body alone would be 2 × its characters (about 2 × utf8 here).
    expect(perRecord).toBeLessThan(1.4 * utf8);
    expect((await store.get('https://h7.example'))?.body).toBe(text(7));

    const longText = (i: number) => `# ${i}\n` + 'User-agent: *\nDisallow: /private/path/\n'.repeat(400);
    const longStore = new MemoryPolicyStore({ maxOrigins: n });
    const start = heap();
    for (let i = 0; i < n; i++) await longStore.set(record(`https://l${i}.example`, decoder.decode(new TextEncoder().encode(longText(i)))));
    // A one-byte string would take its length in bytes (about 15,600 here).
    expect((heap() - start) / n).toBeLessThan(0.5 * longText(0).length);
    expect((await longStore.get('https://l9.example'))?.body).toBe(longText(9));
  });
});
