// `robots-gate sitemaps ORIGIN... --user-agent UA`: the URLs an origin's robots.txt sitemaps list,
// read through the gate (each sitemap decided by its own robots.txt, spaced by its host's
// interval), without crawling them.
import { Command } from 'commander';
import { RobotsGate } from '../gate/gate.js';
import { discoverSitemaps, type DiscoveryStats, type SitemapReport } from '../discovery/index.js';
import { printable } from './lint.js';
import { collect } from './repeatable.js';
import { cliIdentity, PRODUCT_TOKEN_HELP } from './identity.js';
import { count as plural } from './plural.js';

/** Exit codes, as `--help` documents them. */
export const SITEMAPS_EXIT = { ok: 0, someUnread: 1, usage: 2 } as const;

interface SitemapsCliOptions {
  userAgent: string;
  productToken: string[];
  json?: boolean;
  resolve: string[];
  timeout: string;
  minInterval: string;
  maxUrlsPerHost: string;
  quiet?: boolean;
}


export function sitemapsCommand(): Command {
  return new Command('sitemaps')
    .description("list the URLs each origin's robots.txt Sitemap: lines lead to (sitemaps and indexes read through the gate), without crawling them")
    .argument('<origin...>', 'origins (or any URL on them)')
    .requiredOption('--user-agent <ua>', "the crawler's User-Agent; every sitemap request is decided by its product token")
    .option('--product-token <name>', PRODUCT_TOKEN_HELP, collect, [])
    .option('--json', 'one JSON object a line: url, lastmod, changefreq, priority, sitemap (source), robotsUrl (the advertising robots.txt), allowed, reason and rule (type, pattern, line) of its robots.txt decision')
    .option('--resolve <host:port:addr>', 'connect HOST:PORT to ADDR instead (curl convention); repeatable', collect, [])
    .option('--timeout <ms>', 'one sitemap fetch, body included, in ms', '30000')
    .option('--min-interval <ms>', 'floor between two requests to one host, in ms (a longer Crawl-delay wins)', '2000')
    .option('--max-urls-per-host <n>', 'URLs kept per host at most, over all its sitemaps', '100000')
    .option('--quiet', 'no progress or per-sitemap lines on stderr')
    .addHelpText(
      'after',
      `
Each sitemap named by robots.txt is read (urlset, sitemapindex nested up to 3 deep, gzip, plain
text, RSS, Atom) under the protocol's limits: 50,000 URLs and 50 MB uncompressed per sitemap, a
decompression ratio cap against gzip bombs, and --timeout per fetch. URLs outside a sitemap's scope
(another host, or above its directory) are dropped and counted per reason on stderr.

Each URL listed is put to its own robots.txt (already fetched for the sitemap: no page is
requested). One it disallows is printed as a comment, so the list stays a valid crawl input:
  # disallowed by http://a.test/robots.txt line 2 (Disallow: /private/): http://a.test/private/x

Exit codes:
  0  every sitemap found was read in full
  1  a sitemap was blocked by robots.txt, failed (4xx, 5xx, network), was an HTML page (not a
     sitemap: it lists nothing), or was cut at a limit
  2  bad usage (an origin that is not http(s), a bad number)`,
    )
    .action(async (origins: string[], opts: SitemapsCliOptions) => {
      process.exitCode = await runSitemaps(origins, opts);
    });
}

function whole(name: string, raw: string, min: number): number | string {
  const n = Number(raw);
  return Number.isInteger(n) && n >= min ? n : `${name} must be a whole number >= ${min}, got ${JSON.stringify(raw)}`;
}

async function runSitemaps(origins: string[], opts: SitemapsCliOptions): Promise<number> {
  const err = (s: string) => process.stderr.write(`robots-gate sitemaps: ${printable(s)}\n`);
  const timeoutMs = whole('--timeout', opts.timeout, 1);
  const minIntervalMs = whole('--min-interval', opts.minInterval, 0);
  const maxUrlsPerHost = whole('--max-urls-per-host', opts.maxUrlsPerHost, 0);
  for (const v of [timeoutMs, minIntervalMs, maxUrlsPerHost]) {
    if (typeof v === 'string') {
      err(v);
      return SITEMAPS_EXIT.usage;
    }
  }
  let gate: RobotsGate;
  try {
    // The identity first: its errors name --user-agent, the gate's name its own option.
    cliIdentity(opts.userAgent, opts.productToken);
    gate = new RobotsGate({ userAgent: opts.userAgent, ...(opts.productToken.length ? { productToken: opts.productToken } : {}), resolve: opts.resolve, timeoutMs: Math.min(timeoutMs as number, 10_000), minIntervalMs: minIntervalMs as number });
  } catch (e) {
    err((e as Error).message);
    return SITEMAPS_EXIT.usage;
  }
  let unread = false;
  try {
    for (const origin of origins) {
      let disallowed = 0;
      let html = 0;
      let discovery;
      try {
        discovery = discoverSitemaps(gate, origin, {
          timeoutMs: timeoutMs as number,
          minIntervalMs: minIntervalMs as number,
          maxUrlsPerHost: maxUrlsPerHost as number,
          onSitemap: (r) => {
            if (!readInFull(r)) unread = true;
            if (isHtmlPage(r)) html++;
            if (!opts.quiet) err(describe(r));
          },
        });
      } catch (e) {
        err((e as Error).message);
        return SITEMAPS_EXIT.usage;
      }
      for await (const u of discovery) {
        // A sitemap is a hint: what robots.txt says of each URL is the answer. The URL's robots.txt
        // is in the gate's cache (the sitemap's own request was decided by it), so nothing is sent.
        const d = await gate.check(u.url);
        if (!d.allowed) disallowed++;
        const line = opts.json
          ? JSON.stringify({
              url: u.url,
              lastmod: u.lastmod ?? null,
              changefreq: u.changefreq ?? null,
              priority: u.priority ?? null,
              sitemap: u.sitemap,
              robotsUrl: u.robotsUrl,
              allowed: d.allowed,
              reason: d.reason,
              rule: d.rule ? { type: d.rule.type, pattern: d.rule.pattern, line: d.rule.line } : null,
            })
          : d.allowed
            ? u.url
            : `# disallowed by ${d.policy.robotsUrl}${d.rule ? ` line ${d.rule.line} (${d.rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${d.rule.pattern})` : ` (${d.reason})`}: ${u.url}`;
        if (!process.stdout.write(line + '\n')) await new Promise((r) => process.stdout.once('drain', r));
      }
      if (!opts.quiet) err(summary(discovery.origin, discovery.stats, { disallowed, html }));
    }
  } finally {
    await gate.close();
  }
  return unread ? SITEMAPS_EXIT.someUnread : SITEMAPS_EXIT.ok;
}

/** An HTML page where a sitemap was promised (a CMS's 404 page or home page served with 200): it was
 *  fetched, so discovery counts it read, but it lists nothing. */
export function isHtmlPage(r: SitemapReport): boolean {
  return r.outcome === 'read' && r.format === 'html';
}

/** Read whole and a sitemap: what exit 0 promises of every sitemap found. An HTML page yielded
 *  nothing, as a failed fetch did, so it counts against that promise too. */
export function readInFull(r: SitemapReport): boolean {
  return r.outcome === 'read' && r.limit === null && !isHtmlPage(r);
}

/** How many of the sitemaps read were HTML pages, for a summary line; '' for none. */
export function htmlPagesText(n: number): string {
  return n > 0 ? ` (${n === 1 ? '1 an HTML page, not a sitemap' : `${n} HTML pages, not sitemaps`})` : '';
}

/** One stderr line per sitemap: what came of it. */
export function describe(r: SitemapReport): string {
  const what =
    r.outcome === 'blocked'
      ? `blocked by ${r.decision?.policy.robotsUrl ?? 'robots.txt'}${r.decision?.rule ? ` (line ${r.decision.rule.line})` : ''}`
      : r.outcome === 'error'
        ? `not read: ${r.error ?? 'error'}`
        : `${r.format}${r.gzip ? ' (gzip)' : ''}: ${r.urls} URLs${r.sitemaps ? `, ${r.sitemaps} sitemaps` : ''}`;
  const dropped = Object.entries(r.dropped)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const extra = [r.limit ? `stopped at limit ${r.limit}` : '', dropped ? `dropped: ${dropped}` : '', ...r.problems.slice(0, 2)].filter(Boolean);
  return `sitemap ${r.url} ${what}${extra.length ? `; ${extra.join('; ')}` : ''}`;
}

/** The per-origin summary line; `disallowed`: how many of the URLs found robots.txt disallows,
 *  when they were put to it; `html`: how many of the sitemaps read were HTML pages (isHtmlPage),
 *  which the stats count as read. */
export function summary(origin: string, s: DiscoveryStats, o: { disallowed?: number; html?: number } = {}): string {
  const { disallowed, html = 0 } = o;
  const dropped = Object.entries(s.dropped)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const limits = Object.entries(s.limits)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return (
    `${origin}: ${plural(s.sitemapsRead, 'sitemap')} read${htmlPagesText(html)}, ${s.sitemapsFailed} failed, ${s.sitemapsBlocked} blocked; ${plural(s.urlsFound, 'URL')} found` +
    (disallowed !== undefined ? ` (${disallowed} disallowed by robots.txt)` : '') +
    (dropped ? `; dropped: ${dropped}` : '') +
    (limits ? `; limits hit: ${limits}` : '')
  );
}
