// A set-up that starts `serve` and Chromium together, on a machine where Chromium fails: the
// started `serve` must be known to the test file (so its afterAll stops it), not left running.
import { afterEach, describe, expect, it } from 'vitest';
import { startAll } from '../helpers/start-all.js';
import { launchChromium } from '../tools/browser.js';
import { startServe, type ServeProcess } from '../tools/cli.js';
import { assertBuilt } from '../cli/run-cli.js';

let serve: ServeProcess | undefined;
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('set-up that starts several processes', () => {
  it('when one start fails, every other one has been assigned, so it can be stopped', async () => {
    assertBuilt();
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    let failure: unknown;
    try {
      await startAll([startServe([]).then((s) => (serve = s)), launchChromium()]);
    } catch (err) {
      failure = err;
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
    expect(String(failure)).toMatch(/nonexistent\/chromium|executable/i);
    expect(serve).toBeDefined();
    const pid = serve!.child.pid!;
    expect(alive(pid)).toBe(true);
    await serve!.stop();
    expect(alive(pid)).toBe(false);
  });
});
