// Types for scripts/replay-server.mjs (plain JavaScript so that `node scripts/…` runs it directly).

export interface Example {
  /** File name under examples/robots/. */
  file: string;
  /** The real host the file came from, lower-cased, exactly as in examples/MANIFEST.tsv. */
  host: string;
  /** Why the file was chosen (MANIFEST.tsv `why`). */
  why: string;
  /** The robots.txt body, byte for byte. */
  bytes: Buffer;
}

export interface ReplayRequest {
  host: string;
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  userAgent: string | undefined;
  /** ms since the epoch (fractional) when the request arrived. */
  startedAt: number;
  /** ms since the epoch (fractional) when the whole response was written to the socket; always
   *  before the client saw it end, so gaps measured from it are never shorter than the client's. */
  endedAt?: number;
}

export interface Replay {
  port: number;
  hosts: string[];
  /** `HOST:PORT:127.0.0.1` for every host. */
  resolve: string[];
  /** `['--resolve', 'HOST:PORT:127.0.0.1', …]`, ready for a CLI argv. */
  resolveArgs: string[];
  /** Every request seen, in arrival order. */
  log: ReplayRequest[];
  /** `http://HOST:PORT`. */
  origin(host: string): string;
  close(): Promise<void>;
}

export const EXAMPLES_DIR: string;
/** @throws Error when the manifest lacks a column, names a host twice, or a file's size differs. */
export function loadExamples(dir?: string): Example[];
export function pageFor(host: string, path: string): string;
/** @throws Error when a host in options.hosts is not in the examples. */
export function start(
  port?: number,
  options?: { examples?: Example[]; hosts?: string[]; onResponse?: (entry: ReplayRequest) => void },
): Promise<Replay>;
