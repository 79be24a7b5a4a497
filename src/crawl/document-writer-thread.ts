// The document writer's thread: places the documents the main thread sends, with synchronous file
// system calls, one batch after another. Synchronous here because this thread does nothing else:
// each fs call made through the libuv pool instead woke a pool thread and then the main loop (13
// futex calls per document), and the same calls made synchronously on the main thread blocked it
// (an openat of a new file takes ~200 µs on ext4). The placing rules are document-store.ts's, the
// same decisions over the same three paths; see there for why each is so.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { COLLISION, PLACEMENT_TRIES, placementPath, resolveInside } from './document-path.js';
import type { PlaceJob, PlaceReply, PlaceResult, WireError } from './document-writer.js';

/**
 * Place one document: hash it, then try its paths in order. Never throws: a file system that
 * refuses becomes `{ error, rel }`, every path taken `{ tried }`.
 */
function placeSync(job: PlaceJob): PlaceResult {
  const sha256 = createHash('sha256').update(job.body).digest('hex');
  const u = new URL(job.url);
  const tried: string[] = [];
  for (let i = 0; i < PLACEMENT_TRIES; i++) {
    const rel = placementPath(u, i, tried, sha256);
    tried.push(rel);
    try {
      if (writeNew(job.outDir, rel, job.body, job.tmp)) return { savedPath: rel, sha256 };
    } catch (err) {
      if (!COLLISION.has((err as { code?: string }).code ?? '')) return { error: wire(err), rel };
    }
  }
  return { tried };
}

/** Write `body` at `rel` unless a file is there: true when written or already holding exactly
 *  these bytes, false when it holds others. Through a temporary file renamed into place whole.
 *  One document at a time on this thread, so no other save places this path meanwhile. */
function writeNew(outDir: string, rel: string, body: Uint8Array, tmpName: string): boolean {
  const full = resolveInside(outDir, rel);
  if (fs.lstatSync(full, { throwIfNoEntry: false }) === undefined) {
    const dir = path.dirname(full);
    const tmp = path.join(dir, tmpName);
    try {
      writeTemp(dir, tmp, body);
      fs.renameSync(tmp, full);
      return true;
    } catch (err) {
      // A write cut short (a full disk) may have left part of the temporary file.
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // Nothing more to do: the error that matters is the write's.
      }
      throw err;
    }
  }
  let there: Buffer;
  try {
    there = fs.readFileSync(full);
  } catch {
    return false;
  }
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).equals(there);
}

/** Folders made (or found) by this thread; bounded as in document-store.ts. */
const madeDirs = new Set<string>();
const MADE_DIRS_MAX = 100_000;

function writeTemp(dir: string, tmp: string, body: Uint8Array): void {
  if (!madeDirs.has(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    if (madeDirs.size >= MADE_DIRS_MAX) madeDirs.clear();
    madeDirs.add(dir);
  }
  try {
    fs.writeFileSync(tmp, body, { flag: 'wx' });
  } catch (err) {
    // The folder went away since (removed by hand mid-crawl): make it again, once.
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    madeDirs.delete(dir);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, body, { flag: 'wx' });
  }
}

/** An error as plain data: a structured clone of an Error keeps neither `code` nor `syscall`. */
function wire(err: unknown): WireError {
  const e = err as Partial<NodeJS.ErrnoException>;
  return { name: e.name ?? 'Error', message: e.message ?? String(err), code: e.code, errno: e.errno, syscall: e.syscall, path: e.path };
}

/** Serve `port`: every batch that arrived while the last was placed is placed in one round and
 *  answered in one message, so a busy crawl costs one wake-up of each thread per round. */
function serve(port: MessagePort): void {
  port.on('message', (first: { jobs: PlaceJob[] }) => {
    let batch: PlaceJob[] | undefined = first.jobs;
    while (batch !== undefined) {
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
        for (const job of (m.message as { jobs: PlaceJob[] }).jobs) batch.push(job);
      }
      const reply: PlaceReply = { ids: [], results: [] };
      for (const job of batch) {
        reply.ids.push(job.id);
        reply.results.push(placeSync(job));
      }
      port.postMessage(reply);
      const next = receiveMessageOnPort(port);
      batch = next === undefined ? undefined : (next.message as { jobs: PlaceJob[] }).jobs;
    }
  });
}

if (parentPort !== null) serve(parentPort);
