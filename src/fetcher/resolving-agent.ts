// curl-style `--resolve HOST:PORT:ADDR`: requests to HOST:PORT connect to ADDR instead. The Host
// header, TLS SNI and certificate checks still use HOST, so a crawl can run against local servers
// that answer for real host names.
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { InvalidResolveEntryError } from './errors.js';

/** `host:port` (host lower-cased ASCII, port a number) → the addresses to connect to instead. */
export type ResolveMap = ReadonlyMap<string, readonly string[]>;

/**
 * Parse curl-style entries `HOST:PORT:ADDR[,ADDR…]`. HOST may be `[v6]`; ADDR may be `[v6]` too.
 * @throws InvalidResolveEntryError (a TypeError) naming the bad entry.
 */
export function parseResolveEntries(entries: readonly string[]): ResolveMap {
  const map = new Map<string, string[]>();
  for (const entry of entries) {
    if (typeof entry !== 'string') throw new InvalidResolveEntryError(String(entry), 'not a string');
    // curl's removal form (`-HOST:PORT`) has two parts: said as what it is, not as a wrong shape.
    if (entry.trim().startsWith('-')) throw new InvalidResolveEntryError(entry, `"${entry.trim()}" is curl's removal form (-HOST:PORT), which a list given once never needs`);
    // curl's leading `+` (a timed entry) changes nothing for one run: accepted and ignored.
    const m = /^\+?(\[[^\]]+\]|[^:]+):(\d{1,5}):(.+)$/.exec(entry.trim());
    if (!m) throw new InvalidResolveEntryError(entry, 'wrong shape');
    const [, rawHost, rawPort, rawAddrs] = m as unknown as [string, string, string, string];
    // curl's wildcard host and its removal entries were taken as host names no request ever has:
    // the entry did nothing, and the host's robots.txt came back unreachable (all disallowed).
    if (rawHost === '*') throw new InvalidResolveEntryError(entry, "curl's wildcard host * is not supported: name each host");
    const port = Number(rawPort);
    if (port < 1 || port > 65535) throw new InvalidResolveEntryError(entry, `port ${rawPort} out of range`);
    const host = rawHost.startsWith('[') ? rawHost.toLowerCase() : domainToASCII(rawHost);
    if (!host) throw new InvalidResolveEntryError(entry, `bad host ${JSON.stringify(rawHost)}`);
    const addrs = rawAddrs.split(',').map((a) => a.trim().replace(/^\[(.*)\]$/, '$1'));
    for (const a of addrs) if (isIP(a) === 0) throw new InvalidResolveEntryError(entry, `${JSON.stringify(a)} is not an IP address`);
    map.set(`${host}:${port}`, addrs);
  }
  return map;
}

/**
 * An undici Agent that connects requests for the given `HOST:PORT` pairs to `ADDR` (curl's
 * `--resolve` convention); every other request connects normally. With several ADDRs for a pair,
 * connections take them in turn.
 * @param resolve entries `HOST:PORT:ADDR[,ADDR…]`; e.g. `['a.test:8080:127.0.0.1']`.
 * @param options further undici Agent options (`connect` may give TLS options such as `ca`).
 * @throws InvalidResolveEntryError (a TypeError) for a malformed entry.
 */
export function createResolvingAgent(resolve: readonly string[], options: Agent.Options = {}): Dispatcher {
  const map = parseResolveEntries(resolve);
  const connectOptions = typeof options.connect === 'function' ? undefined : options.connect;
  const base = typeof options.connect === 'function' ? options.connect : buildConnector({ ...connectOptions });
  const turn = new Map<string, number>();
  const connect: buildConnector.connector = (opts, callback) => {
    const port = opts.port || (opts.protocol === 'https:' ? '443' : '80');
    const hostname = opts.hostname.startsWith('[') || isIP(opts.hostname) === 6 ? `[${opts.hostname.replace(/^\[|\]$/g, '')}]` : opts.hostname;
    const key = `${hostname.toLowerCase()}:${port}`;
    const addrs = map.get(key);
    if (addrs === undefined) return base(opts, callback);
    const i = turn.get(key) ?? 0;
    turn.set(key, (i + 1) % addrs.length);
    // Keep SNI and certificate checks on the name asked for, not on the address connected to.
    const servername = opts.servername || (isIP(opts.hostname) === 0 ? opts.hostname : undefined);
    return base({ ...opts, hostname: addrs[i]!, ...(servername ? { servername } : {}) }, callback);
  };
  return new Agent({ ...options, connect });
}
