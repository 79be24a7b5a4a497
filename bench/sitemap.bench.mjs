// Sitemap bench: URLs parsed per second and peak memory on a 50,000-URL sitemap (plain and gzip),
// robots-gate's discoverSitemaps against sitemapper (the sitemap library most used with Node), in
// the same run, on the same loopback server. Each measurement runs in a fresh child process, so
// its peak RSS (getrusage maxrss) is its own. robots-gate also fetches robots.txt and takes the
// host's slot (floor 0 here); sitemapper is handed the sitemap URL directly.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const URLS = 50_000;
const ROUNDS = 3;
const self = fileURLToPath(import.meta.url);

function sitemapXml(origin) {
  const parts = [`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n`];
  for (let i = 0; i < URLS; i++) {
    parts.push(`<url><loc>${origin}/products/item-${i}?ref=sitemap&amp;v=${i % 7}</loc><lastmod>2024-0${(i % 9) + 1}-1${i % 10}</lastmod><changefreq>weekly</changefreq><priority>0.${i % 10}</priority></url>\n`);
  }
  parts.push('</urlset>\n');
  return Buffer.from(parts.join(''));
}

async function serve() {
  let plain;
  let gz;
  const s = http.createServer((req, res) => {
    const origin = `http://127.0.0.1:${s.address().port}`;
    if (req.url === '/robots.txt') {
      // One server for both runs: its robots.txt names the plain or the gzip sitemap, as the run sets.
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml${process.env.RG_SITEMAP_GZ ? '.gz' : ''}\n`);
    }
    if (req.url === '/sitemap.xml') return void res.writeHead(200, { 'content-type': 'application/xml' }).end(plain);
    if (req.url === '/sitemap.xml.gz') return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(gz);
    res.writeHead(404).end();
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${s.address().port}`;
  plain = sitemapXml(origin);
  gz = zlib.gzipSync(plain);
  return { origin, plainBytes: plain.length, gzBytes: gz.length, close: () => new Promise((r) => (s.closeAllConnections(), s.close(r))) };
}

/** In the child: one measurement, printed as JSON. */
async function child(which, origin, gzip) {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  let n = 0;
  if (which === 'robots-gate') {
    const { RobotsGate, discoverSitemaps } = await import('../dist/index.js');
    const gate = new RobotsGate({ userAgent: 'BenchBot/1.0', minIntervalMs: 0 });
    for await (const u of discoverSitemaps(gate, origin, { minIntervalMs: 0 })) if (u.url) n++;
    await gate.close();
  } else {
    const { default: Sitemapper } = await import('sitemapper');
    const sm = new Sitemapper({ url: `${origin}/sitemap.xml${gzip ? '.gz' : ''}`, timeout: 60_000, fields: { loc: true, lastmod: true, changefreq: true, priority: true } });
    const { sites } = await sm.fetch();
    n = sites.length;
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ n, ms, maxRssKb: process.resourceUsage().maxRSS, startRssKb: Math.round(before / 1024) }));
}

/** Async: the server answering the child lives in this process's event loop. */
async function measure(which, origin, gzip) {
  const { stdout } = await promisify(execFile)(process.execPath, [self, 'child', which, origin, gzip ? 'gz' : 'plain'], { encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(stdout);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  const srv = await serve();
  console.log(`50,000-URL urlset: ${(srv.plainBytes / 1e6).toFixed(1)} MB plain, ${(srv.gzBytes / 1e6).toFixed(2)} MB gzip; median of ${ROUNDS} fresh processes each`);
  console.log('| sitemap | library | URLs | URLs/s | peak RSS (MB) | ratio URLs/s (rg / peer) | ratio peak RSS (rg / peer) |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  try {
    for (const gzip of [false, true]) {
      // The robots.txt served names the plain or the gzip sitemap: the server reads the same env.
      process.env.RG_SITEMAP_GZ = gzip ? '1' : '';
      const res = {};
      for (const which of ['robots-gate', 'sitemapper']) {
        const runs = [];
        for (let i = 0; i < ROUNDS; i++) runs.push(await measure(which, srv.origin, gzip));
        res[which] = { n: runs[0].n, rate: median(runs.map((r) => r.n / (r.ms / 1000))), rss: median(runs.map((r) => r.maxRssKb / 1024)) };
      }
      const a = res['robots-gate'];
      const b = res.sitemapper;
      for (const [name, r] of Object.entries(res)) {
        console.log(
          `| ${gzip ? 'gzip' : 'plain'} | ${name} | ${r.n} | ${Math.round(r.rate).toLocaleString('en')} | ${r.rss.toFixed(1)} | ${name === 'robots-gate' ? (a.rate / b.rate).toFixed(2) : ''} | ${name === 'robots-gate' ? (a.rss / b.rss).toFixed(2) : ''} |`,
        );
      }
    }
  } finally {
    process.env.RG_SITEMAP_GZ = '';
    await srv.close();
  }
}

if (process.argv[2] === 'child') await child(process.argv[3], process.argv[4], process.argv[5] === 'gz');
else if (process.argv[1] === self) await run();
