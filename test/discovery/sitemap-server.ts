// Sitemap bodies for the discovery tests, served by real loopback servers. The large ones are
// generated as the client reads them (backpressure), so a "10 GB" bomb or a million-URL listing
// never exists in this process either: the server counts what it actually sent.
import type http from 'node:http';
import zlib from 'node:zlib';

export const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

export const urlset = (entries: (string | { loc: string; lastmod?: string; changefreq?: string; priority?: string })[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NS}">\n` +
  entries
    .map((e) => (typeof e === 'string' ? { loc: e } : e))
    .map(
      (e) =>
        `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}${e.changefreq ? `<changefreq>${e.changefreq}</changefreq>` : ''}${e.priority ? `<priority>${e.priority}</priority>` : ''}</url>`,
    )
    .join('\n') +
  '\n</urlset>\n';

export const sitemapindex = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${NS}">\n${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;

/** Counts the bytes a streamed body actually put on the wire. */
export interface Sent {
  bytes: number;
  done: boolean;
}

/**
 * Write `total` pieces produced by `piece(i)` to `res`, waiting for drain, stopping when the
 * client goes away. Returns when finished or aborted.
 */
export async function stream(res: http.ServerResponse, head: Buffer | string, piece: (i: number) => Buffer | string, total: number, tail: Buffer | string, sent: Sent): Promise<void> {
  let gone = false;
  res.once('close', () => (gone = true));
  const write = async (b: Buffer | string) => {
    sent.bytes += Buffer.byteLength(b);
    if (!res.write(b)) await new Promise<void>((r) => {
      res.once('drain', r);
      res.once('close', r);
    });
  };
  await write(head);
  for (let i = 0; i < total && !gone; i++) await write(piece(i));
  if (!gone) {
    await write(tail);
    sent.done = true;
    res.end();
  }
}

/** One gzip member inflating to 1 MiB of spaces (about 1 KB): concatenated members are one
 *  valid gzip stream (RFC 1952 §2.2), so N of them is an N MiB bomb generated for free. */
export const MIB_OF_SPACES_GZ = zlib.gzipSync(Buffer.alloc(1_048_576, 0x20), { level: 9 });
export const gzipMember = (s: string) => zlib.gzipSync(s);
