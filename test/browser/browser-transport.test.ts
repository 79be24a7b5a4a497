// BrowserTransport: the document is fetched once through the gate, rendered in Chromium from
// those bytes, and every request the page makes becomes a `subresource` audit row.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import type { AttemptRow } from '../../src/audit/types.js';
import { BrowserTransport } from '../../src/crawl/browser-transport.js';
import { RobotsGate } from '../../src/gate/index.js';
import { site, startVirtualHosts, type VirtualHosts } from '../helpers/hosts.js';

let hosts: VirtualHosts;
let dir: string;
let port = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-browser-transport-'));
  hosts = await startVirtualHosts({
    'www.test': site('User-agent: *\nDisallow: /admin\n', (p) =>
      p === '/'
        ? `<!doctype html><html><head><script src="http://cdn.test:${port}/lib.js"></script></head><body>
<img src="http://ads.test:${port}/track/pixel.png"><iframe src="http://www.test:${port}/frame"></iframe>
<script>document.body.dataset.rendered = String(window.lib); fetch('http://api.test:${port}/v1/items').catch(() => {})</script></body></html>`
        : undefined,
    ),
    'cdn.test': (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.lib = 42;');
    },
    'ads.test': site('User-agent: *\nDisallow: /track/\n'),
    'api.test': (req, res) => void res.writeHead(req.url === '/robots.txt' ? 503 : 200).end('{}'),
  });
  port = hosts.port;
});
afterAll(async () => {
  await hosts?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('renders the fetched document and audits each subresource decision against its page', async () => {
  const gate = new RobotsGate({ userAgent: 'RenderBot/2.0', resolve: hosts.resolve });
  const auditFile = path.join(dir, 'audit.jsonl');
  const audit = new JsonlAuditSink(auditFile);
  const transport = await BrowserTransport.open({ gate, audit, runId: 'run-1', resolve: hosts.resolve, screenshotDir: dir, settleMs: 500 });
  const pageUrl = `http://www.test:${port}/`;
  try {
    const result = await transport.fetch(pageUrl);
    expect(result.hops.map((h) => h.status)).toEqual([200]);
    const html = Buffer.from(result.body).toString('utf8');
    // Rendered: the script from the allowed CDN ran before the page's own script.
    expect(html).toContain('data-rendered="42"');
    expect(fs.existsSync(path.join(dir, `www.test_${port}`, 'index.html.png'))).toBe(true);
  } finally {
    await transport.close();
    audit.close();
    await gate.close();
  }

  // The document was asked for once (by the HTTP fetch), not again by the browser.
  expect(hosts.requests('www.test', '/')).toHaveLength(1);
  expect(hosts.requests('ads.test').map((r) => r.path)).toEqual(['/robots.txt']);
  expect(hosts.requests('api.test').map((r) => r.path)).toEqual(['/robots.txt']);
  expect(hosts.requests('cdn.test', '/lib.js').map((r) => r.userAgent)).toEqual(['RenderBot/2.0']);

  const rows = fs
    .readFileSync(auditFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AttemptRow & { type: string })
    .filter((r) => r.type === 'attempt');
  for (const r of rows) expect(r).toMatchObject({ kind: 'subresource', parentUrl: pageUrl, runId: 'run-1' });
  const by = (u: string) => rows.find((r) => r.url === u);
  expect(by(`http://cdn.test:${port}/lib.js`)).toMatchObject({ outcome: 'fetched', status: 200, reason: 'unavailable', policyStatus: 404 });
  expect(by(`http://ads.test:${port}/track/pixel.png`)).toMatchObject({
    outcome: 'blocked',
    status: null,
    reason: 'disallowed-by-rule',
    ruleLine: 2,
    rulePattern: '/track/',
    robotsUrl: `http://ads.test:${port}/robots.txt`,
  });
  expect(by(`http://ads.test:${port}/track/pixel.png`)?.policySha256).toMatch(/^[0-9a-f]{64}$/);
  expect(by(`http://api.test:${port}/v1/items`)).toMatchObject({ outcome: 'blocked', reason: 'unreachable', policyStatus: 503 });
  // The iframe is a navigation of the page: gated, fetched through the gate's client, audited.
  expect(by(`http://www.test:${port}/frame`)).toMatchObject({ outcome: 'fetched', status: 200 });
  expect(rows).toHaveLength(4);
});
