// Output piped into a reader that stops early (`robots-gate check … | head -1`): once the reader
// is gone, further output is dropped instead of crashing the command with an unhandled EPIPE
// stack trace. The command still finishes and exits with its own code.

let installed = false;

/** Drop stdout writes after EPIPE (idempotent). Other stdout errors are re-thrown. */
export function tolerateBrokenPipe(): void {
  if (installed) return;
  installed = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
