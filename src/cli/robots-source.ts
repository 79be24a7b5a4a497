// Where `check` and `explain` get a robots.txt: a local FILE for every URL, or each URL's own
// origin through the gate (which also gives the body, from its 'policy' event).
import fs from 'node:fs/promises';
import { RobotsGate } from '../gate/gate.js';
import type { Decision } from '../gate/types.js';
import { parseRobotsTxt } from '../parser/index.js';
import type { RobotsTxt } from '../parser/types.js';
import type { PolicyRecord } from '../stores/types.js';
import { fsProblem } from './fs-words.js';

/** Bytes read from a --robots-file at most (the parser keeps 500 KiB and reports the rest). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A --robots-file that cannot be read; the message says why in words. */
export class RobotsFileError extends Error {
  readonly code = 'ERR_ROBOTS_FILE';
}

/** Read and parse a --robots-file (a pipe such as `<(curl …)` too: read in order, not by position).
 *  @throws RobotsFileError (missing, a directory, not readable). */
export async function readRobotsFile(file: string): Promise<{ text: Uint8Array; robots: RobotsTxt }> {
  let handle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    throw new RobotsFileError(fsProblem(err), { cause: err });
  }
  try {
    const buf = Buffer.alloc(MAX_FILE_BYTES);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, filled, MAX_FILE_BYTES - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === MAX_FILE_BYTES) break;
    }
    const text = buf.subarray(0, filled);
    return { text, robots: parseRobotsTxt(text) };
  } catch (err) {
    throw new RobotsFileError(fsProblem(err), { cause: err });
  } finally {
    await handle.close();
  }
}

/** Where a fetched robots.txt came from, as the commands print it: `robotsUrl`, or
 *  `robotsUrl → finalUrl` when it was redirected (RFC 9309 §2.3.1.2: the rules are the final one's). */
export function robotsWhere(p: { readonly robotsUrl: string; readonly finalUrl: string }): string {
  return p.finalUrl && p.finalUrl !== p.robotsUrl ? `${p.robotsUrl} → ${p.finalUrl}` : p.robotsUrl;
}

/** A gate for the one-shot commands, remembering the body of each robots.txt it fetched. */
export class FetchingSource {
  readonly gate: RobotsGate;
  private readonly bodies = new Map<string, PolicyRecord>();

  /** @param productToken the --product-token values (none: read from userAgent). */
  constructor(userAgent: string, resolve: readonly string[], timeoutMs: number, productToken: readonly string[] = []) {
    this.gate = new RobotsGate({ userAgent, resolve, timeoutMs, ...(productToken.length ? { productToken } : {}) });
    this.gate.on('policy', (r) => this.bodies.set(r.origin, r));
  }

  check(url: string): Promise<Decision> {
    return this.gate.check(url);
  }

  /** The record fetched for an origin (body present for a 2xx). */
  record(origin: string): PolicyRecord | undefined {
    return this.bodies.get(origin);
  }

  close(): Promise<void> {
    return this.gate.close();
  }
}

/** A warning for a robots.txt that looked like an HTML page (none otherwise). A site that answers
 *  every path with a page serves one for robots.txt too; read as RFC 9309 asks, it yields no rule,
 *  which would otherwise read like a permissive file. */
export function htmlWarning(p: { readonly html?: boolean | undefined; readonly finalUrl: string }): string[] {
  if (!p.html) return [];
  return [`${p.finalUrl} looks like an HTML page, not a robots.txt file: it was read as one all the same (a 2xx response is the file, RFC 9309 §2.3.1.1), and a page holds few rules or none`];
}
