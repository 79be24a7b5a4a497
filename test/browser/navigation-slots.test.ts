// A navigation that becomes a download, in both orders Chromium may tell it: the host's slot is
// held until the download ends, whether the download was announced while the navigation still
// held the slot or after its frame had stopped loading (what Chromium 156 does; the browser tests
// cover that order end to end). The limiter is an in-memory one; another request to the host is
// a take on the same limiter's Pacer, as gate.fetch's would be.
import { describe, expect, test } from 'vitest';
import { NavigationSlots } from '../../src/browser/navigation-pace.js';
import { pacerFor } from '../../src/politeness/pacer.js';
import { MemoryRateLimiter } from '../../src/stores/memory-rate-limiter.js';

const HOST = 'files.test';
const URL_ = `http://${HOST}/big.zip`;
const NO_INTERVAL = { ms: 0, reason: 'floor' } as const;
const tick = () => new Promise((r) => setTimeout(r, 20));

/** Resolves to true once another request to the host got its slot (then released at once). */
function otherRequest(limiter: MemoryRateLimiter): { readonly got: boolean } {
  const state = { got: false };
  void pacerFor(limiter)
    .take(HOST, NO_INTERVAL)
    .then(async (s) => {
      state.got = true;
      await s.release(Date.now());
    });
  return state;
}

/** Another request to the host waits while download `guid` goes on, and gets its slot at its end. */
async function expectHeldUntilEnded(limiter: MemoryRateLimiter, slots: NavigationSlots, guid: string): Promise<void> {
  const other = otherRequest(limiter);
  await tick();
  expect(other.got).toBe(false);
  slots.downloadEnded(guid);
  await tick();
  expect(other.got).toBe(true);
}

describe('NavigationSlots, a navigation that becomes a download', () => {
  test('announced after the frame stopped loading: the host is claimed back until the download ends', async () => {
    const limiter = new MemoryRateLimiter();
    const slots = new NavigationSlots(limiter);
    const life = new AbortController();
    await slots.hold('loader-1', 'frame-1', URL_, () => NO_INTERVAL, life.signal);
    slots.endFrame('frame-1');
    await slots.downloadBegan('frame-1', 'guid-1', URL_);
    await expectHeldUntilEnded(limiter, slots, 'guid-1');
  });

  test('announced while the navigation holds the slot: the frame\'s stop does not end it, nor does a new navigation of the frame', async () => {
    const limiter = new MemoryRateLimiter();
    const slots = new NavigationSlots(limiter);
    const life = new AbortController();
    await slots.hold('loader-1', 'frame-1', URL_, () => NO_INTERVAL, life.signal);
    await slots.downloadBegan('frame-1', 'guid-1', URL_);
    slots.endFrame('frame-1');
    await slots.hold('loader-2', 'frame-1', 'http://elsewhere.test/', () => NO_INTERVAL, life.signal);
    await expectHeldUntilEnded(limiter, slots, 'guid-1');
  });

  test('ended before its claim was answered: nothing stays held', async () => {
    const limiter = new MemoryRateLimiter();
    const slots = new NavigationSlots(limiter);
    const began = slots.downloadBegan('frame-1', 'guid-1', URL_);
    slots.downloadEnded('guid-1');
    await began;
    const other = otherRequest(limiter);
    await tick();
    expect(other.got).toBe(true);
  });

  test('its page gone mid-download: the host stays held, for the browser carries the download on', async () => {
    const limiter = new MemoryRateLimiter();
    const slots = new NavigationSlots(limiter);
    const life = new AbortController();
    await slots.hold('loader-1', 'frame-1', URL_, () => NO_INTERVAL, life.signal);
    await slots.downloadBegan('frame-1', 'guid-1', URL_);
    life.abort(new Error('target closed'));
    await expectHeldUntilEnded(limiter, slots, 'guid-1');
  });

  test('another request holding the host when the download is announced: the download claims nothing, and that request\'s end frees the host', async () => {
    const limiter = new MemoryRateLimiter();
    const slots = new NavigationSlots(limiter);
    const life = new AbortController();
    const held = await pacerFor(limiter).take(HOST, NO_INTERVAL);
    await slots.downloadBegan('frame-1', 'guid-1', URL_);
    await held.release(Date.now());
    const other = otherRequest(limiter);
    await tick();
    expect(other.got).toBe(true);
  });

  test('announced to two sessions of one page at once: held once, freed by its one end', async () => {
    const limiter = new MemoryRateLimiter();
    const slots = new NavigationSlots(limiter);
    await Promise.all([slots.downloadBegan('frame-1', 'guid-1', URL_), slots.downloadBegan('frame-1', 'guid-1', URL_)]);
    await expectHeldUntilEnded(limiter, slots, 'guid-1');
  });
});
