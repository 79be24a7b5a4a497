// A small real crawl (the built CLI against loopback hosts) whose robots.txt changes mid-crawl,
// so the audit browser and the report are tested on what `robots-gate crawl` really writes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startVirtualHosts } from '../helpers/hosts.js';
import { runCli } from './cli.js';

export const SHOP_ROBOTS_V1 = 'User-agent: *\nDisallow: /cart\n';
export const NOT_A_URL = 'this line is not a URL';
export const SHOP_ROBOTS_V2 = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout\n';

/** Run the crawl; returns the output DIR. shop.test serves v1 to the first robots.txt fetch, v2 after. */
export async function runSmallCrawl(): Promise<string> {
  let robotsFetches = 0;
  const hosts = await startVirtualHosts({
    'shop.test': (req, res) => {
      if (req.url === '/robots.txt') {
        robotsFetches++;
        res.writeHead(200, { 'content-type': 'text/plain' }).end(robotsFetches === 1 ? SHOP_ROBOTS_V1 : SHOP_ROBOTS_V2);
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${req.url}</body></html>`);
      }
    },
    'news.test': (req, res) => {
      if (req.url === '/robots.txt') res.writeHead(200).end('User-agent: *\nDisallow: /drafts/\nCrawl-delay: 0.1\n');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('news');
    },
  });
  try {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-tools-crawl-'));
    const urls = [
      ...['/', '/a', '/cart', '/b', '/c', '/checkout', '/d'].map((p) => `${hosts.origin('shop.test')}${p}`),
      ...['/', '/world', '/drafts/x', '/sport'].map((p) => `${hosts.origin('news.test')}${p}`),
    ];
    const list = path.join(dir, 'urls.txt');
    // One line that is not a URL: the crawl records it as skipped with no host.
    writeFileSync(list, [...urls, NOT_A_URL].join('\n') + '\n');
    const r = await runCli(
      ['crawl', list, '--user-agent', 'ToolsTestBot/1.0', '--out', path.join(dir, 'out'), '--min-interval', '60', '--recheck-after', '50',
        ...hosts.resolve.flatMap((e) => ['--resolve', e])],
      { timeoutMs: 30_000 },
    );
    // The crawl exits 1 for the line that is not a URL; the callers check every count.
    if (r.code !== 1 || !r.stderr.includes(`not a URL: ${NOT_A_URL}`)) throw new Error(`crawl exited ${r.code}: ${r.stderr}`);
    return path.join(dir, 'out');
  } finally {
    await hosts.close();
  }
}
