// Output piped into a reader that stops early (`robots-gate check … | head -1`, a log reader that
// dies): once the reader is gone, further output is dropped instead of crashing the command with
// an unhandled EPIPE. The command finishes its work (a crawl keeps crawling and recording) and
// exits with its own code.

let installed = false;

/** Drop stdout and stderr writes after EPIPE (idempotent). Other stream errors are re-thrown. */
export function tolerateBrokenPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}
