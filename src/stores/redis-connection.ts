// One Redis connection for the fleet stores, and what happens when Redis goes away.
//
// At start: the connection must answer, or `connectRedis` rejects with RedisUnreachableError
// naming the URL, so a CLI can exit non-zero with a clear message.
//
// Mid-run: every store operation goes through `RedisConnection.run`, which retries with
// backoff until Redis answers again. It never gives up and never falls back to local state:
// a fleet that fell back to per-process limiters would multiply every host's rate by the
// number of workers. While Redis is away the callers simply wait, so no request is sent.
// Every mutating script is idempotent on a token the caller made, so a command that reached
// Redis before the connection dropped (and is resent, or retried after a timeout) does no
// harm the second time.
import { channel } from 'node:diagnostics_channel';
import { Redis, type RedisOptions } from 'ioredis';

/** Published on `robots-gate:redis` when the connection is lost or comes back. */
export interface RedisStatusEvent {
  readonly state: 'lost' | 'restored';
  /** The URL with any password masked. */
  readonly url: string;
  /** What failed (on `lost`). */
  readonly error?: string;
  /** How long Redis was away (ms; on `restored`). */
  readonly downMs?: number;
}

export const redisChannel = channel('robots-gate:redis');

/** Redis could not be reached when the stores were created. */
export class RedisUnreachableError extends Error {
  readonly code = 'ERR_REDIS_UNREACHABLE';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach Redis at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RedisUnreachableError';
  }
}

/** A `redis://` URL that cannot be used. */
export class RedisUrlError extends Error {
  readonly code = 'ERR_REDIS_URL';
  constructor(readonly url: string, reason: string) {
    super(`invalid Redis URL ${url}: ${reason}`);
    this.name = 'RedisUrlError';
  }
}

export interface RedisConnectionOptions {
  /** Give up connecting at start after this long (ms). Default 3000. */
  connectTimeoutMs?: number;
  /** A command that has no answer after this long (ms) counts as Redis being away, and is
   *  retried. Default 1000. Catches a Redis that hangs with its socket still open. */
  commandTimeoutMs?: number;
  /** Backoff between retries while Redis is away (ms): starts here, doubles. Default 50. */
  retryBaseMs?: number;
  /** Backoff cap (ms). Default 1000. */
  retryMaxMs?: number;
  /** Called on each status change, besides the diagnostics channel. */
  onStatus?: (event: RedisStatusEvent) => void;
}

/** Mask the password in a Redis URL for messages. */
export function maskRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RedisUrlError(url, 'not a URL (expected redis://HOST:PORT)');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new RedisUrlError(url, `scheme ${u.protocol} (expected redis: or rediss:)`);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A server reply error (a bug, or a wrong key type) is not Redis being away: never retried. */
function isReplyError(err: unknown): boolean {
  return err instanceof Error && err.name === 'ReplyError';
}

/**
 * A Redis client plus retry-until-it-answers. Obtain with `connectRedis`.
 */
export class RedisConnection {
  readonly url: string;
  private downSince: number | undefined;
  private closed = false;
  private readonly extra: Redis[] = [];

  constructor(
    readonly client: Redis,
    url: string,
    private readonly options: RedisConnectionOptions,
  ) {
    this.url = maskRedisUrl(url);
    // ioredis emits 'error' on every failed reconnect; with no listener Node would throw it.
    client.on('error', (err: Error) => this.lost(err));
    client.on('ready', () => this.restored());
  }

  /**
   * Run `op`, retrying with backoff while Redis is unreachable or not answering. Rejects only
   * on a server reply error or once the connection is closed. `op` must be idempotent: it may
   * have taken effect before its answer was lost.
   */
  async run<T>(op: (client: Redis) => Promise<T>): Promise<T> {
    let delay = this.options.retryBaseMs ?? 50;
    const max = this.options.retryMaxMs ?? 1000;
    for (;;) {
      if (this.closed) throw new Error(`Redis connection to ${this.url} is closed`);
      // While disconnected, wait for the reconnect rather than pile retries into the offline
      // queue (each would be sent when Redis is back).
      if (this.client.status !== 'ready' && this.downSince !== undefined) await this.whenReady(max);
      const sentAt = Date.now();
      try {
        const result = await op(this.client);
        this.restored();
        return result;
      } catch (err) {
        if (isReplyError(err) || this.closed) throw err;
        // A timeout is noticed commandTimeoutMs late: Redis was away since the command went out.
        this.lost(err, sentAt);
        await sleep(delay);
        delay = Math.min(delay * 2, max);
      }
    }
  }

  private whenReady(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.client.once('ready', done);
    });
  }

  /** A second connection to the same server (pub/sub needs its own), closed with this one.
   *  @param options ioredis options that differ from this connection's. */
  duplicate(options?: Partial<RedisOptions>): Redis {
    const c = this.client.duplicate(options);
    c.on('error', (err: Error) => this.lost(err));
    this.extra.push(c);
    return c;
  }

  private lost(err: unknown, since = Date.now()): void {
    if (this.closed || this.downSince !== undefined) return;
    this.downSince = since;
    this.publish({ state: 'lost', url: this.url, error: err instanceof Error ? err.message : String(err) });
  }

  private restored(): void {
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    this.publish({ state: 'restored', url: this.url, downMs });
  }

  private publish(event: RedisStatusEvent): void {
    if (redisChannel.hasSubscribers) redisChannel.publish(event);
    this.options.onStatus?.(event);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const c of [...this.extra, this.client]) {
      try {
        await c.quit();
      } catch {
        c.disconnect();
      }
    }
  }
}

/**
 * Connect to Redis at `url` (`redis://[user:pass@]HOST:PORT[/db]`) and check that it answers.
 * @throws RedisUrlError for a malformed URL; RedisUnreachableError when it does not answer
 *   within `connectTimeoutMs`.
 */
export async function connectRedis(url: string, options: RedisConnectionOptions = {}): Promise<RedisConnection> {
  checkUrl(url);
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 3000,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    // Commands issued while disconnected wait in the offline queue for the reconnect rather
    // than failing; a command is never failed for the number of reconnects it saw. Our own
    // retry loop (RedisConnection.run) handles timeouts, so these two only avoid needless
    // errors.
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    // Commands that were on the wire when the socket dropped are sent again after the
    // reconnect: safe because every script is idempotent on its token.
    autoResendUnfulfilledCommands: true,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1000),
  };
  const client = new Redis(url, redisOptions);
  // Until connected, failures are reported by the rejection below, not as events; the first
  // such event says more (ECONNREFUSED, ENOTFOUND) than the rejection ("Connection is closed").
  let first: unknown;
  const swallow = (err: unknown) => (first ??= err);
  client.on('error', swallow);
  try {
    await client.connect();
    await client.ping();
    // ioredis reports a failed SELECT of the URL's database (`/99` on a server with 16) only as
    // an 'error' event and carries on in database 0: the fleet would share another run's keys.
    if (isReplyError(first)) throw first;
  } catch (err) {
    client.disconnect();
    const cause = first ?? err;
    // A server that is not Redis (an HTTP port, say) answers bytes ioredis cannot read.
    const notRedis = cause instanceof Error && /^Protocol error/.test(cause.message);
    throw new RedisUnreachableError(maskRedisUrl(url), notRedis ? new Error(`it does not speak the Redis protocol (${cause.message.replace(/ Please report this\.$/, '')})`) : cause);
  }
  client.off('error', swallow);
  return new RedisConnection(client, url, options);
}
