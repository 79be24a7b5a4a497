// The URL list: concrete paths from each file's own patterns, labelled by the project's parser,
// with both allowed and disallowed URLs for files that have rules, and a politeness budget.
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../dist/parser/index.js';
import { loadExamples } from '../../scripts/replay-server.mjs';
import { DEMO_USER_AGENT, buildHostUrls, buildUrlList, formatUrlList, patternToPath, scanRules } from '../../scripts/url-list.mjs';

const examples = loadExamples();
const byHost = (host: string) => {
  const e = examples.find((x) => x.host === host);
  if (!e) throw new Error(`no example ${host}`);
  return e;
};

describe('patternToPath', () => {
  it('turns a pattern into a path the pattern matches', () => {
    expect(patternToPath('/*.pdf$')).toBe('/demo.pdf');
    expect(patternToPath('/search*')).toBe('/searchdemo');
    expect(patternToPath('*/print')).toBe('/demo/print');
    expect(patternToPath('/wiki/Spécial:')).toBe('/wiki/Sp%C3%A9cial:');
    expect(patternToPath('/a b#c')).toBe('/a%20b%23c');
    expect(patternToPath('/%E2%80%A6/x%zz')).toBe('/%E2%80%A6/x%25zz');
    expect(patternToPath('/*?sort=')).toBe('/demo?sort=');
  });
});

describe('scanRules', () => {
  it('reads CR-only, CRLF and UTF-16 files line by line', () => {
    const cr = scanRules(new TextEncoder().encode('User-agent: *\rDisallow: /a\rAllow: /b # why\r'));
    expect(cr).toEqual([
      { type: 'disallow', pattern: '/a', line: 2 },
      { type: 'allow', pattern: '/b', line: 3 },
    ]);
    const utf16 = scanRules(byHost('www.myvue.com').bytes);
    expect(utf16.map((r) => r.pattern)).toContain('/login*');
  });
});

describe('buildHostUrls', () => {
  it('yields allowed and disallowed URLs for files with rules, labelled as the parser decides', () => {
    for (const host of ['wikipedia.org', 'google.com', 'stackoverflow.com', 'www.analog.com', 'www.koreanair.com', 'docs.oracle.com']) {
      const e = byHost(host);
      const plan = buildHostUrls(e, { origin: `https://${host}` });
      const robots = parseRobotsTxt(e.bytes);
      expect(plan.urls.some((u) => u.allowed), `${host}: no allowed URL`).toBe(true);
      expect(plan.urls.some((u) => !u.allowed), `${host}: no disallowed URL`).toBe(true);
      for (const u of plan.urls) {
        expect(u.url).toBe(`https://${host}${u.path}`);
        expect(robots.isAllowed(u.path, DEMO_USER_AGENT), u.url).toBe(u.allowed);
        expect(robots.isAllowed(u.url, DEMO_USER_AGENT), u.url).toBe(u.allowed);
      }
    }
  });

  it('keeps every host within the politeness budget and flags Crawl-delays over the maximum', () => {
    const plans = buildUrlList(examples, { origin: (h) => `http://${h}:8080`, budgetMs: 60_000 });
    for (const p of plans) {
      expect(p.boundMs, p.host).toBeLessThanOrEqual(60_000);
      expect(new Set(p.urls.map((u) => u.url)).size, p.host).toBe(p.urls.length);
    }
    const inkscape = plans.find((p) => p.host === 'www.inkscape.org');
    expect(inkscape?.crawlDelaySeconds).toBe(86400);
    expect(inkscape?.skipped).toBe(true);
    const arxiv = plans.find((p) => p.host === 'arxiv.org');
    expect(arxiv?.intervalMs).toBe(15_000);
    expect(arxiv?.urls.filter((u) => u.allowed).length).toBe(4);
    const text = formatUrlList(plans);
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBe(plans.reduce((n, p) => n + p.urls.length, 0));
    for (const l of lines) expect(() => new URL(l)).not.toThrow();
  });

  it('gives files with no rules (an empty body, an HTML page) ordinary pages, all allowed', () => {
    for (const host of ['creatingkegtogether.com', '37signals.com']) {
      const plan = buildHostUrls(byHost(host), { origin: `https://${host}` });
      expect(plan.urls.length).toBeGreaterThan(0);
      expect(plan.urls.every((u) => u.allowed && u.rule === null)).toBe(true);
    }
  });
});
