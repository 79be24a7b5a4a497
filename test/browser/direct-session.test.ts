// The fast path of browser gating reaches into Playwright's server side (direct-session.ts).
// These fail when the pinned playwright-core stops offering it: gating would still be correct
// (gate-page.test.ts runs over the public sessions too) but slower, as bench/README.md shows.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../src/browser/index.js';
import { directBrowserSession, directContextId, directPageChannel } from '../../src/browser/direct-session.js';
import { connectChromium } from './fixtures.js';
import { startAll } from '../helpers/start-all.js';

let inProcess: Browser;
let connected: Awaited<ReturnType<typeof connectChromium>>;

beforeAll(async () => {
  await startAll([launchChromium().then((b) => (inProcess = b)), connectChromium().then((c) => (connected = c))]);
});
afterAll(async () => {
  await inProcess?.close();
  await connected?.close();
});

test('Playwright in this process: page, context and browser sessions on its server side', async () => {
  const context = await inProcess.newContext();
  try {
    const page = await context.newPage();
    expect(directContextId(context)).toMatch(/^[0-9A-F]{32}$/);
    const channel = await directPageChannel(page);
    expect(channel).not.toBeNull();
    const { targetInfo } = await channel!.send<{ targetInfo: { targetId: string; type: string; browserContextId: string } }>('Target.getTargetInfo');
    expect(targetInfo).toMatchObject({ type: 'page', browserContextId: directContextId(context) });
    await channel!.detach();

    const session = await directBrowserSession(inProcess);
    expect(session).not.toBeNull();
    const { targetInfos } = await session!.send<{ targetInfos: Array<{ targetId: string }> }>('Target.getTargets');
    expect(targetInfos.map((t) => t.targetId)).toContain(targetInfo.targetId);
    // A flat child session answers like any other.
    const { sessionId } = await session!.send<{ sessionId: string }>('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: true });
    const child = session!.child(sessionId);
    await expect(child.send('Runtime.evaluate', { expression: '6 * 7' })).resolves.toMatchObject({ result: { value: 42 } });
    await child.detach();
    await session!.detach();
  } finally {
    await context.close();
  }
});

test('Playwright connected to a server elsewhere: no server side here, so null (public sessions then)', async () => {
  const context = await connected.browser.newContext();
  try {
    const page = await context.newPage();
    expect(directContextId(context)).toBeNull();
    expect(await directPageChannel(page)).toBeNull();
    expect(await directBrowserSession(connected.browser)).toBeNull();
  } finally {
    await context.close();
  }
});
