import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/parser/index.js';
import {
  parseTdmRep,
  signalFromTdmRep,
  signalsFromHeaders,
  signalsFromHtml,
  signalsFromRobots,
  usageDiagnostics,
  usageVerdict,
} from '../../src/usage/index.js';

const ctx = { productTokens: ['ExampleBot'] };

describe('robots.txt usage lines', () => {
  it('Content-Usage is matched by the longest path, in the group that applies (aipref attach draft)', () => {
    const robots = parseRobotsTxt(
      ['User-Agent: *', 'Allow: /', 'Disallow: /never/', 'Content-Usage: train-ai=n', 'Content-Usage: /ai-ok/ train-ai=y', '', 'User-Agent: OtherBot', 'Content-Usage: search=n'].join('\n'),
    );
    const top = robots.usage('/page', 'ExampleBot/1.0');
    expect(top.contentUsage.map((l) => [l.line, l.value, l.path])).toEqual([[4, 'train-ai=n', null]]);
    const ok = robots.usage('/ai-ok/x', 'ExampleBot/1.0');
    expect(ok.contentUsage.map((l) => l.line)).toEqual([5]);
    expect(usageVerdict(signalsFromRobots(ok)).purposes['ai-train'].verdict).toBe('allowed');
    expect(usageVerdict(signalsFromRobots(top)).purposes['ai-train'].verdict).toBe('reserved');
    // OtherBot's own group applies to it, not the * group.
    const other = robots.usage('/page', 'OtherBot');
    expect(other.contentUsage.map((l) => l.line)).toEqual([8]);
    expect(usageVerdict(signalsFromRobots(other)).purposes.search.verdict).toBe('reserved');
    expect(usageVerdict(signalsFromRobots(other)).purposes['ai-train'].verdict).toBe('unknown');
  });

  it('a repeated usage line is read once, and past 256 distinct ones the rest are ignored, each with a diagnostic', () => {
    // 10,000 copies of one line (a hostile file a breaker served): every check read them all, and
    // every audit row carried them (8.5 MB a row, 52 ms a check).
    const copies = parseRobotsTxt('User-agent: *\nDisallow: /private/\n' + 'Content-Signal: ai-train=no, search=yes\n'.repeat(10_000));
    const m = copies.usage('/page', 'ExampleBot');
    expect(m.contentSignal.map((l) => l.line)).toEqual([3]);
    expect(usageVerdict(signalsFromRobots(m)).purposes['ai-train'].verdict).toBe('reserved');
    expect(copies.diagnostics.filter((d) => d.code === 'duplicate-usage-line')).toHaveLength(9_999);
    // Distinct lines: the first 256 are kept, the rest not read, said once; what they might
    // reserve is taken as reserved (fail closed): a file-wide train-ai=n after 256 path lines
    // allowing it read as "unknown" when they were only dropped.
    const distinct = parseRobotsTxt('User-agent: *\n' + Array.from({ length: 256 }, (_, i) => `Content-Usage: /p${i}/ train-ai=y\n`).join('') + 'Content-Usage: train-ai=n\n' + 'Content-Usage: /q/ search=y\n');
    expect(distinct.usage('/p255/x', 'ExampleBot').contentUsage.map((l) => l.line)).toEqual([257]);
    expect(distinct.usage('/q/x', 'ExampleBot').contentUsage).toEqual([]);
    const over = distinct.diagnostics.filter((d) => d.code === 'too-many-usage-lines');
    expect(over.map((d) => [d.line, d.severity])).toEqual([[258, 'warning']]);
    expect(over[0]!.message).toMatch(/More than 256 distinct .* every use is taken as reserved/);
    for (const path of ['/elsewhere', '/p3/x', '/q/x']) {
      const v = usageVerdict(signalsFromRobots(distinct.usage(path, 'ExampleBot')));
      expect([v.purposes['ai-train'].verdict, v.purposes.search.verdict, v.purposes['ai-input'].verdict], path).toEqual(['reserved', 'reserved', 'reserved']);
    }
  });

  it('usage lines never change access', () => {
    const robots = parseRobotsTxt('User-agent: *\nContent-Usage: train-ai=n\nDisallow: /x\n');
    expect(robots.check('/y', 'Bot').allowed).toBe(true);
    expect(robots.check('/x', 'Bot').allowed).toBe(false);
    expect(robots.check('/x', 'Bot').rule?.line).toBe(3);
  });

  it("a Cloudflare-style file: comment block, User-agent: *, Content-Signal, then the site's own * group, merged", () => {
    const text = [
      '# As a condition of accessing this website, you agree to abide by the following content signals:',
      '# (a) If a content-signal = yes, you may collect content for the corresponding use.',
      '# (b) If a content-signal = no, you may not collect content for the corresponding use.',
      '',
      'User-agent: *',
      'Content-Signal: search=yes, ai-train=no',
      '',
      'User-agent: *',
      'Disallow: /admin',
      'Allow: /',
    ].join('\n');
    const robots = parseRobotsTxt(text);
    expect(robots.check('/admin/x', 'ExampleBot').allowed).toBe(false);
    const m = robots.usage('/page', 'ExampleBot');
    expect(m.contentSignal.map((l) => [l.line, l.scope])).toEqual([[6, 'group']]);
    const v = usageVerdict(signalsFromRobots(m, 'https://a.example/robots.txt'));
    expect(v.purposes.search.verdict).toBe('allowed');
    expect(v.purposes['ai-train'].verdict).toBe('reserved');
    expect(v.purposes['ai-train'].signals[0]).toMatchObject({ kind: 'content-signal', line: 6, url: 'https://a.example/robots.txt' });
    expect(v.purposes['ai-input'].verdict).toBe('unknown');
  });

  it('a Content-Signal before any group applies to every crawler, with an info diagnostic; Content-Usage there is an error', () => {
    const robots = parseRobotsTxt('Content-Signal: ai-input=no\nContent-Usage: train-ai=n\nUser-agent: FooBot\nDisallow: /x\n');
    expect(robots.usage('/a', 'FooBot').contentSignal.map((l) => l.scope)).toEqual(['file']);
    expect(robots.usage('/a', 'FooBot').contentUsage).toEqual([]);
    const codes = robots.diagnostics.map((d) => [d.code, d.severity, d.line]);
    expect(codes).toContainEqual(['signal-outside-group', 'info', 1]);
    expect(codes).toContainEqual(['usage-outside-group', 'error', 2]);
  });

  it('upper-case keys are read lower-cased with a warning; a value that is neither y nor n is named', () => {
    const robots = parseRobotsTxt('User-agent: *\nContent-Usage: train-ai=n, Search=y\nContent-Usage: /x train-ai=maybe\n');
    expect(usageVerdict(signalsFromRobots(robots.usage('/a', 'Bot'))).purposes['ai-train'].verdict).toBe('reserved');
    expect(usageDiagnostics(robots).map((x) => [x.code, x.line])).toEqual([
      ['usage-syntax', 2],
      ['usage-bad-value', 3],
    ]);
  });

  it('lint names bad syntax and unknown labels', () => {
    const robots = parseRobotsTxt('User-agent: *\nContent-Usage: train-ai=n, bots=y\nContent-Signal: search=yes ai-train\n');
    const d = usageDiagnostics(robots).map((x) => [x.code, x.line]);
    expect(d).toEqual([
      ['usage-unknown-label', 2],
      ['usage-syntax', 3],
    ]);
  });
});

describe('response headers and HTML', () => {
  it('Content-Usage header: a structured dictionary; unknown labels ignored', () => {
    const v = usageVerdict(signalsFromHeaders({ 'content-usage': 'train-ai=n, search=y, foo=n' }, ctx));
    expect(v.purposes['ai-train'].verdict).toBe('reserved');
    expect(v.purposes.search.verdict).toBe('allowed');
  });

  it('X-Robots-Tag scoped to a user agent applies only to that crawler', () => {
    const mine = usageVerdict(signalsFromHeaders({ 'x-robots-tag': 'examplebot: noai' }, ctx));
    expect(mine.purposes['ai-train'].verdict).toBe('reserved');
    expect(mine.purposes['ai-input'].verdict).toBe('reserved');
    const other = usageVerdict(signalsFromHeaders({ 'x-robots-tag': 'gptbot: noai, noimageai' }, ctx));
    expect(other.purposes['ai-train'].verdict).toBe('unknown');
    const all = usageVerdict(signalsFromHeaders({ 'x-robots-tag': 'noindex, nofollow' }, ctx));
    expect(all.purposes.search.verdict).toBe('reserved');
    // noimageai speaks of images only.
    expect(usageVerdict(signalsFromHeaders({ 'x-robots-tag': 'noimageai' }, ctx)).purposes['ai-train'].verdict).toBe('unknown');
    expect(usageVerdict(signalsFromHeaders({ 'x-robots-tag': 'noimageai' }, { ...ctx, contentType: 'image/png' })).purposes['ai-train'].verdict).toBe('reserved');
    // unavailable_after's own colon is not a scope.
    expect(usageVerdict(signalsFromHeaders({ 'x-robots-tag': 'unavailable_after: 25 Jun 2010 15:00:00 PST, noai' }, ctx)).purposes['ai-train'].verdict).toBe('reserved');
  });

  it('meta robots, crawler-named metas and tdm-reservation in the head', () => {
    const html = '<html><head><meta name="robots" content="noindex"><meta name="ExampleBot" content="noai"><meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://a.example/policy.json"></head><body><meta name="robots" content="noai"></body></html>';
    const signals = signalsFromHtml(html, ctx);
    expect(signals.map((s) => s.kind)).toEqual(['meta-robots', 'meta-robots', 'tdmrep-meta']);
    const v = usageVerdict(signals);
    expect(v.purposes.search.verdict).toBe('reserved');
    expect(v.purposes['ai-train'].verdict).toBe('reserved');
    expect(signals[2]!.value).toBe('tdm-reservation=1; tdm-policy=https://a.example/policy.json');
  });

  it('TDMRep precedence: the file, then the header, then HTML; absence resets nothing', () => {
    const file = parseTdmRep(JSON.stringify([
      { location: '/images/*', 'tdm-reservation': 1, 'tdm-policy': 'https://a.example/p.json' },
      { location: '/open/*', 'tdm-reservation': 0 },
    ]));
    const header = signalsFromHeaders({ 'tdm-reservation': '1' }, ctx);
    const meta = signalsFromHtml('<meta name="tdm-reservation" content="0">', ctx);
    // The file says 0 for /open/: the header's 1 does not count.
    const open = usageVerdict([signalFromTdmRep(file, '/open/a', 'https://a.example/.well-known/tdmrep.json')!, ...header, ...meta]);
    expect(open.purposes['ai-train'].verdict).toBe('allowed');
    expect(open.purposes['ai-train'].signals[0]!.kind).toBe('tdmrep-file');
    // No rule covers /other: the header governs, over the meta.
    expect(signalFromTdmRep(file, '/other', 'x')).toBeNull();
    expect(usageVerdict([...header, ...meta]).purposes['ai-train'].verdict).toBe('reserved');
    // Only the meta: it governs.
    expect(usageVerdict(meta).purposes['ai-train'].verdict).toBe('allowed');
    expect(parseTdmRep('{"not":"an array"}').problems).toHaveLength(1);
    expect(parseTdmRep('[{"location":"/a"}]').problems).toHaveLength(1);
  });

  it('any reservation wins over allowances from other mechanisms', () => {
    const robots = parseRobotsTxt('User-agent: *\nContent-Usage: train-ai=y\n');
    const v = usageVerdict([...signalsFromRobots(robots.usage('/a', 'ExampleBot')), ...signalsFromHeaders({ 'content-usage': 'train-ai=n' }, ctx)]);
    expect(v.rule).toBe('any-reserved-wins');
    expect(v.purposes['ai-train']).toMatchObject({ verdict: 'reserved', signals: [{ source: 'header' }] });
  });
});
