// The gate and usage: robots.txt usage lines ride on every decision; with `purpose` they refuse
// what they reserve, through every door, and nothing reaches the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualHosts, site, type VirtualHosts } from '../helpers/hosts.js';
import { RobotsBlockedError, RobotsGate } from '../../src/index.js';

const UA = 'UsageBot/1.0 (+https://bot.example/about)';
const CLOUDFLARE = [
  '# As a condition of accessing this website, you agree to abide by the following content signals:',
  '# ai-train: training or fine-tuning AI models.',
  '',
  'User-agent: *',
  'Content-Signal: search=yes, ai-train=no',
  '',
  'User-agent: *',
  'Disallow: /admin',
].join('\n');

let vh: VirtualHosts;
beforeAll(async () => {
  vh = await startVirtualHosts({
    'cf.test': site(CLOUDFLARE),
    'aipref.test': site('User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n'),
    'plain.test': site('User-agent: *\nDisallow: /x\n'),
  });
});
afterAll(async () => {
  await vh?.close();
});

describe('usage on decisions', () => {
  it('every decision carries what robots.txt says of usage, and access is unchanged without a purpose', async () => {
    const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve });
    try {
      const d = await gate.check(`${vh.origin('cf.test')}/page`);
      expect(d.allowed).toBe(true);
      expect(d.reason).toBe('no-matching-rule');
      expect(d.usage?.purposes['ai-train']).toMatchObject({ verdict: 'reserved', signals: [{ kind: 'content-signal', line: 5 }] });
      expect(d.usage?.purposes.search.verdict).toBe('allowed');
      expect((await gate.check(`${vh.origin('cf.test')}/admin/x`)).allowed).toBe(false);
      expect((await gate.check(`${vh.origin('plain.test')}/a`)).usage).toBeUndefined();
    } finally {
      await gate.close();
    }
  });

  it('with purpose ai-train, what robots.txt reserves is refused (usage-reserved) and never sent, through check and fetch', async () => {
    const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, purpose: 'ai-train' });
    try {
      const reserved = await gate.check(`${vh.origin('aipref.test')}/page`);
      expect(reserved).toMatchObject({ allowed: false, reason: 'usage-reserved' });
      expect(reserved.usage?.purposes['ai-train'].signals[0]).toMatchObject({ kind: 'content-usage', line: 3 });
      // The longer path allows training there.
      expect((await gate.check(`${vh.origin('aipref.test')}/open/doc`)).allowed).toBe(true);
      const err = await gate.fetch(`${vh.origin('aipref.test')}/page`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RobotsBlockedError);
      expect((err as RobotsBlockedError).decision.reason).toBe('usage-reserved');
      expect(vh.requests('aipref.test', '/page')).toHaveLength(0);
      // search is not reserved by the Cloudflare file: a search gate fetches.
    } finally {
      await gate.close();
    }
    const search = new RobotsGate({ userAgent: UA, resolve: vh.resolve, purpose: 'search' });
    try {
      expect((await search.check(`${vh.origin('cf.test')}/page`)).allowed).toBe(true);
    } finally {
      await search.close();
    }
  });

  it('override lifts an access disallow, never a usage reservation', async () => {
    const gate = new RobotsGate({ userAgent: UA, resolve: vh.resolve, purpose: 'ai-train', override: true });
    try {
      // The file reserves ai-train for all it serves: an overridden URL too (it was let through,
      // its usage never read, and crawl --override --purpose ai-train kept the document).
      const admin = await gate.check(`${vh.origin('cf.test')}/admin/x`);
      expect(admin).toMatchObject({ allowed: false, reason: 'usage-reserved', overridden: true });
      expect(admin.usage?.purposes['ai-train']).toMatchObject({ verdict: 'reserved' });
      expect((await gate.check(`${vh.origin('cf.test')}/page`)).reason).toBe('usage-reserved');
      // A file that reserves nothing: the override lets the URL through.
      expect(await gate.check(`${vh.origin('plain.test')}/x`)).toMatchObject({ allowed: true, reason: 'overridden' });
    } finally {
      await gate.close();
    }
  });

  it('refuses an unknown purpose', () => {
    expect(() => new RobotsGate({ userAgent: UA, purpose: 'training' as never })).toThrow(/purpose must be one of search, ai-input, ai-train/);
  });
});
