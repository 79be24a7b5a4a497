// The main thread's side of the document writer: one thread per process (document-writer-thread.ts)
// places every document with synchronous calls, fed in batches. Measured on a 2-core machine
// (20,000 documents, concurrency 16): each libuv pool trip of an async write woke a pool thread
// and then the main loop, 13 futex calls per document and a quarter of the main thread's time;
// here a batch costs one message each way, whatever its size.
//
// Nothing here may end the process: a thread that cannot start, or dies, leaves its saves (those
// sent and not answered, those queued, and every later one) to the in-thread code, which places
// each the same way. A document the thread had placed before it died is found there, holding the
// same bytes, and reported at the same path: none is lost, none saved twice.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { conflictPath, documentPath, resolveInside } from './document-path.js';

/** One document for the thread. `tmp`: the temporary file's name (no folder), chosen here so a
 *  thread that dies mid-write leaves nothing this side cannot find and remove. */
export interface PlaceJob {
  readonly id: number;
  readonly outDir: string;
  readonly url: string;
  readonly body: Uint8Array;
  readonly tmp: string;
}

/** An error as plain data (a structured clone of an Error drops `code` and `syscall`). */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: string | undefined;
  readonly errno?: number | undefined;
  readonly syscall?: string | undefined;
  readonly path?: string | undefined;
}

/** Placed (`savedPath` relative to the output folder, `sha256` lowercase hex); refused by the file
 *  system while trying `rel`; or every path `tried` held other content. */
export type PlaceResult = { savedPath: string; sha256: string } | { error: WireError; rel: string } | { tried: string[] };

/** The thread's answer to a round: `results[i]` is job `ids[i]`'s. */
export interface PlaceReply {
  readonly ids: number[];
  readonly results: PlaceResult[];
}

/** What the writer needs from document-store.ts (passed in, so neither imports the other). */
export interface WriterHooks<T> {
  /** The in-thread placing of one document, for when there is no thread. */
  inThread(outDir: string, url: string, body: Uint8Array): Promise<T>;
  /** The thread's result as the caller's: the saved document, or throws its error. */
  settle(result: PlaceResult, outDir: string): T;
  /** A fresh temporary file name, never a document's. */
  tmpName(): string;
}

interface Pending<T> {
  readonly job: PlaceJob;
  resolve(value: T): void;
  reject(err: unknown): void;
}

const noop = () => {};

/**
 * Saves documents through the writer thread, started on the first save. The thread holds the
 * process open only while it has documents in hand (it is unref'd when idle), so a crawl's end is
 * the process's end; nothing needs closing.
 */
export class DocumentWriter<T> {
  private worker: Worker | undefined;
  /** No thread any more (it could not start, died, or was terminated): every save in-thread. */
  private gone = false;
  /** The thread is being stopped: nothing more is sent; its exit hands everything to in-thread. */
  private stopping = false;
  private queue: Pending<T>[] = [];
  /** Sent to the thread, not yet answered; in the order sent. */
  private readonly sent = new Map<number, Pending<T>>();
  private flushAt: NodeJS.Immediate | undefined;
  private nextId = 1;
  private exited: Promise<void> | undefined;

  constructor(
    private readonly threadUrl: URL,
    private readonly hooks: WriterHooks<T>,
  ) {}

  /** Start the thread now, before the first save: a thread takes tens of ms to boot (a new
   *  isolate loading its module), which the first documents would otherwise wait out, holding
   *  their URLs. Idle, it does not hold the process open. Never throws. */
  start(): void {
    this.thread();
  }

  /** True while a writer thread runs (false before the first save and after it is gone). */
  get threadRunning(): boolean {
    return this.worker !== undefined && !this.stopping;
  }

  /** Place `body` for `url` under `outDir`; resolves or rejects as `hooks.settle` or
   *  `hooks.inThread` does. The caller's `body` is copied, never transferred: the caller may still
   *  read it (the crawl counts its bytes), and the in-thread code needs it if the thread dies. */
  save(outDir: string, url: string, body: Uint8Array): Promise<T> {
    if (this.gone) return this.hooks.inThread(outDir, url, body);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, outDir, url, body, tmp: this.hooks.tmpName() }, resolve, reject });
      // After the current turn of the event loop: every save its callbacks asked for goes in one
      // message.
      this.flushAt ??= setImmediate(() => this.flush());
    });
  }

  /**
   * Stop the thread. Saves it had in hand, and every later one, are placed in-thread. Resolves
   * once it has stopped. Also the test hook that stands for a thread dying mid-crawl.
   */
  terminate(): Promise<void> {
    if (this.worker === undefined) {
      this.gone = true;
      this.fallBack();
      return Promise.resolve();
    }
    this.stopping = true;
    void this.worker.terminate().catch(noop);
    return this.exited ?? Promise.resolve();
  }

  private flush(): void {
    // Called at once by answer() too: the turn's own call, if one is due, would find nothing.
    if (this.flushAt !== undefined) clearImmediate(this.flushAt);
    this.flushAt = undefined;
    if (this.queue.length === 0 || this.stopping) return;
    // One batch in the thread's hands at a time: what is saved meanwhile goes in the next, sent
    // when this one is answered. Each message cost the main thread about 70 µs in a fast crawl
    // (a 2,000-host crawl sent one per 4 documents), whatever its size.
    if (this.sent.size > 0) return;
    const w = this.thread();
    if (w === undefined) return this.fallBack();
    const batch = this.queue;
    this.queue = [];
    // One copy of every body, into one buffer of the batch's own that is then moved, not cloned
    // again: a caller's body may be a view into a larger buffer (an undici read buffer), which a
    // clone would copy whole; each job's body is a view into the moved one.
    let size = 0;
    for (const p of batch) size += p.job.body.byteLength;
    const all = new Uint8Array(size);
    const jobs: PlaceJob[] = [];
    let at = 0;
    for (const p of batch) {
      const n = p.job.body.byteLength;
      all.set(p.job.body, at);
      jobs.push({ ...p.job, body: all.subarray(at, at + n) });
      at += n;
      this.sent.set(p.job.id, p);
    }
    const transfer = [all.buffer];
    // Held open while documents are in hand (this batch only: none was before it), not after.
    w.ref();
    try {
      w.postMessage({ jobs }, transfer);
    } catch {
      // Not sendable (should not happen with plain data): stop the thread; its exit hands every
      // save in hand to the in-thread code.
      this.stopping = true;
      void w.terminate().catch(noop);
    }
  }

  /** The thread, started on first use; undefined when there is none to be had. */
  private thread(): Worker | undefined {
    if (this.gone) return undefined;
    if (this.worker !== undefined) return this.worker;
    let w: Worker;
    try {
      w = new Worker(this.threadUrl);
    } catch {
      this.gone = true;
      return undefined;
    }
    w.on('message', (r: PlaceReply) => this.answer(r));
    // After the listener: adding a 'message' listener refs the thread's port again.
    w.unref();
    // A thread that throws (or cannot load its module) exits next; the exit hands over.
    w.on('error', noop);
    w.on('messageerror', () => {
      this.stopping = true;
      void w.terminate().catch(noop);
    });
    this.exited = new Promise((resolve) =>
      w.once('exit', () => {
        this.onExit();
        resolve();
      }),
    );
    this.worker = w;
    return w;
  }

  private answer(r: PlaceReply): void {
    for (let i = 0; i < r.ids.length; i++) {
      const p = this.sent.get(r.ids[i]!);
      // Already handed to the in-thread code (an answer after the thread's exit).
      if (p === undefined) continue;
      this.sent.delete(p.job.id);
      let value: T;
      try {
        value = this.hooks.settle(r.results[i]!, p.job.outDir);
      } catch (err) {
        p.reject(err);
        continue;
      }
      p.resolve(value);
    }
    if (this.sent.size === 0 && !this.stopping) {
      if (this.queue.length > 0) this.flush();
      else this.worker?.unref();
    }
  }

  /** The thread has stopped (it makes no more calls): everything it had goes in-thread. */
  private onExit(): void {
    this.worker = undefined;
    this.gone = true;
    this.fallBack();
  }

  /** Hand every save in hand to the in-thread code, in the order asked for: the in-thread code's
   *  own queue per path then keeps two saves to one path in that order. */
  private fallBack(): void {
    const pending = [...this.sent.values(), ...this.queue];
    this.sent.clear();
    this.queue = [];
    for (const p of pending) {
      removeTemporary(p.job);
      this.hooks.inThread(p.job.outDir, p.job.url, p.job.body).then(p.resolve, p.reject);
    }
  }
}

/** Remove what a thread stopped mid-write may have left of `job`: its temporary file, in the
 *  folder of its natural path or of its conflict paths (the two folders it may have written in). */
function removeTemporary(job: PlaceJob): void {
  try {
    const u = new URL(job.url);
    for (const rel of [documentPath(u), conflictPath(u)]) fs.rmSync(path.join(path.dirname(resolveInside(job.outDir, rel)), job.tmp), { force: true });
  } catch {
    // Nothing was left, or it cannot be removed: a `.part` file is never a document's path.
  }
}
