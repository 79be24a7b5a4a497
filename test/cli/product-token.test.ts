// Issue 11 on the command line: check, explain and crawl as subprocesses with real crawler headers,
// --product-token (repeatable), the token said back with where it came from, the warning when a file
// names another product of the header, and a bare browser string refused in CLI words.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAudit } from '../../src/audit/reader.js';
import { site } from '../helpers/hosts.js';
import { HEADERS, NAMING_FILE } from '../helpers/crawler-headers.js';
import { runCli } from './run-cli.js';
import { crawlFixture } from './crawl-fixture.js';

const { tmp, hosts, resolveArgs } = crawlFixture('rg-token-');

function file(dir: string, name: string, body: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, body);
  return f;
}
const json = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l));

describe("GPTBot's real header is disallowed through every CLI door", () => {
  it("OpenAI's published form (compatible; outside the parentheses) is GPTBot for check and crawl", async () => {
    const v = await hosts({ 'names.test': site(NAMING_FILE) });
    const url = `${v.origin('names.test')}/articles/1`;
    const ua = ['--user-agent', HEADERS.gptbotPublished];
    const check = await runCli(['check', url, ...ua, '--json', ...resolveArgs(v)]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(1);
    expect(json(check.stdout)[0]).toMatchObject({ allowed: false, group: { userAgents: ['GPTBot'] }, productToken: 'GPTBot', productTokenReadFrom: 'compatible; GPTBot/1.1' });
    const dir = tmp();
    const crawl = await runCli(['crawl', file(dir, 'urls.txt', `${url}\n`), ...ua, '--out', path.join(dir, 'out'), '--min-interval', '0', ...resolveArgs(v)]);
    expect(crawl.code).toBe(0);
    expect(crawl.stdout).toMatch(/blocked\s+1/);
    expect(v.requests('names.test').filter((r) => r.path !== '/robots.txt')).toHaveLength(0);
  });

  it('check and explain, fetched and --robots-file; crawl sends nothing to the site but robots.txt', async () => {
    const v = await hosts({ 'names.test': site(NAMING_FILE) });
    const url = `${v.origin('names.test')}/articles/1`;
    const ua = ['--user-agent', HEADERS.gptbot];

    const check = await runCli(['check', url, ...ua, '--json', ...resolveArgs(v)]);
    expect(check.code).toBe(1);
    expect(json(check.stdout)[0]).toMatchObject({
      allowed: false,
      reason: 'disallowed-by-rule',
      group: { userAgents: ['GPTBot'] },
      productToken: 'GPTBot',
      productTokenSource: 'user-agent',
      productTokenReadFrom: 'compatible; GPTBot/1.1',
    });

    const explain = await runCli(['explain', url, ...ua, ...resolveArgs(v)]);
    expect(explain.code).toBe(1);
    expect(explain.stdout).toMatch(/^> +12 {2}Disallow: \/$/m);
    expect(explain.stdout).toContain('Product token: GPTBot (read from "compatible; GPTBot/1.1" in --user-agent)');
    const explainJson = await runCli(['explain', url, ...ua, '--json', ...resolveArgs(v)]);
    expect(JSON.parse(explainJson.stdout)).toMatchObject({ allowed: false, productToken: 'GPTBot', productTokenSource: 'user-agent', productTokenReadFrom: 'compatible; GPTBot/1.1', rule: { line: 12 } });

    const dir = tmp();
    const robots = file(dir, 'robots.txt', NAMING_FILE);
    const checkFile = await runCli(['check', url, ...ua, '--robots-file', robots, '--json']);
    expect(checkFile.code).toBe(1);
    expect(json(checkFile.stdout)[0]).toMatchObject({ allowed: false, productToken: 'GPTBot', group: { userAgents: ['GPTBot'] } });
    const explainFile = await runCli(['explain', url, ...ua, '--robots-file', robots]);
    expect(explainFile.code).toBe(1);
    expect(explainFile.stdout).toContain('Product token: GPTBot');

    const urls = file(dir, 'urls.txt', `${url}\n${v.origin('names.test')}/articles/2\n`);
    const crawl = await runCli(['crawl', urls, ...ua, '--out', path.join(dir, 'out'), '--min-interval', '0', ...resolveArgs(v)]);
    expect(crawl.code).toBe(0);
    expect(crawl.stdout).toMatch(/blocked\s+2/);
    expect(v.requests('names.test').filter((r) => r.path !== '/robots.txt')).toHaveLength(0);
    // Every robots.txt request carried the real header, not a token.
    expect(new Set(v.requests('names.test', '/robots.txt').map((r) => r.userAgent))).toEqual(new Set([HEADERS.gptbot]));
    const audit = openAudit(path.join(dir, 'out'));
    try {
      expect(audit.attempts().map((a) => [a.outcome, a.reason, a.ruleLine])).toEqual([
        ['blocked', 'disallowed-by-rule', 12],
        ['blocked', 'disallowed-by-rule', 12],
      ]);
    } finally {
      audit.close();
    }
  });
});

describe('real headers and tokens with digits against a file naming them', () => {
  it('each is decided by its own group', async () => {
    const robots = file(tmp(), 'robots.txt', NAMING_FILE);
    const cases: [string[], string, string][] = [
      [['--user-agent', HEADERS.rfcExample], '/example-only/x', 'ExampleBot'],
      [['--user-agent', HEADERS.googlebotDesktop], '/google-only/x', 'Googlebot'],
      [['--user-agent', HEADERS.googlebotSmartphone], '/google-only/x', 'Googlebot'],
      [['--user-agent', HEADERS.bingbot], '/bing-only/x', 'bingbot'],
      [['--user-agent', HEADERS.claudebot], '/claude-only/x', 'ClaudeBot'],
      [['--user-agent', HEADERS.ai2bot, '--product-token', 'AI2Bot'], '/ai2-only/x', 'AI2Bot'],
      [['--user-agent', HEADERS.mj12bot], '/mj12-only/x', 'MJ12bot'],
      [['--user-agent', 'img2dataset/1.45'], '/img2-only/x', 'img2dataset'],
    ];
    for (const [args, p, group] of cases) {
      const r = await runCli(['check', `https://names.test${p}`, 'https://names.test/private/x', ...args, '--robots-file', robots, '--json']);
      expect(r.code, args.join(' ')).toBe(1);
      const [own, other] = json(r.stdout);
      expect(own, args.join(' ')).toMatchObject({ allowed: false, group: { userAgents: [group] }, productToken: group });
      expect(other.allowed, args.join(' ')).toBe(true); // its own group, not *
    }
  });
});

describe('--product-token', () => {
  it('is matched instead of the token read; repeated, the first one the file names decides', async () => {
    const dir = tmp();
    const robots = file(dir, 'robots.txt', 'User-agent: MyBot\nDisallow: /bot/\n\nUser-agent: *\nDisallow: /star/\n');
    const ua = 'MyBot-News/1.0 (+https://bot.example) MyBot/1.0';
    const r = await runCli(['check', 'https://x.test/bot/1', 'https://x.test/star/1', '--user-agent', ua, '--product-token', 'MyBot-News', '--product-token', 'MyBot', '--robots-file', robots, '--json']);
    expect(r.code).toBe(1);
    expect(json(r.stdout).map((l) => [l.allowed, l.productToken, l.productTokenSource])).toEqual([
      [false, 'MyBot', 'product-token'],
      [true, 'MyBot', 'product-token'],
    ]);
    const e = await runCli(['explain', 'https://x.test/bot/1', '--user-agent', ua, '--product-token', 'MyBot-News', '--product-token', 'MyBot', '--robots-file', robots]);
    expect(e.code).toBe(1);
    expect(e.stdout).toContain('Product token: MyBot (given by --product-token; MyBot-News is not named in this file)');
  });

  it('a token the User-Agent does not carry is exit 2, naming both, in CLI words', async () => {
    const robots = file(tmp(), 'robots.txt', NAMING_FILE);
    for (const cmd of [['check', 'https://x.test/'], ['explain', 'https://x.test/']]) {
      for (const extra of [['--robots-file', robots], []]) {
        const r = await runCli([...cmd, '--user-agent', HEADERS.gptbot, '--product-token', 'ClaudeBot', ...extra]);
        expect(r.code, `${cmd[0]} ${extra.join(' ')}`).toBe(2);
        expect(r.stderr).toContain('--product-token ClaudeBot does not appear in --user-agent');
        expect(r.stderr).toContain(HEADERS.gptbot);
      }
    }
    const dir = tmp();
    const c = await runCli(['crawl', file(dir, 'u.txt', 'http://x.test/\n'), '--user-agent', 'MyBot/1', '--product-token', 'Other', '--out', path.join(dir, 'out')]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--product-token Other does not appear in --user-agent');
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('a browser product (Gecko) as the token is exit 2 for check and crawl: the GPTBot group is never skipped that way', async () => {
    const dir = tmp();
    const robots = file(dir, 'robots.txt', NAMING_FILE);
    const r = await runCli(['check', 'https://x.test/a', '--user-agent', HEADERS.gptbot, '--product-token', 'Gecko', '--robots-file', robots]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--product-token Gecko names a browser or platform, not a crawler');
    const c = await runCli(['crawl', file(dir, 'u.txt', 'http://x.test/\n'), '--user-agent', HEADERS.gptbot, '--product-token', 'Gecko', '--out', path.join(dir, 'out')]);
    expect(c.code).toBe(2);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });
});

describe('crawl --product-token', () => {
  it('matches the token given, records it, and --resume refuses other tokens', async () => {
    const v = await hosts({ 'bot.test': site('User-agent: Other\nDisallow: /\n\nUser-agent: *\nAllow: /\n') });
    const dir = tmp();
    const out = path.join(dir, 'out');
    const urls = file(dir, 'urls.txt', `${v.origin('bot.test')}/a\n`);
    const ua = ['--user-agent', 'MyBot/1.0 Other/2.0'];
    const first = await runCli(['crawl', urls, ...ua, '--product-token', 'Other', '--out', out, '--min-interval', '0', ...resolveArgs(v)]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/blocked\s+1/);
    const audit = openAudit(out);
    try {
      expect(audit.runs()[0]!.options.productToken).toEqual(['Other']);
    } finally {
      audit.close();
    }
    const other = await runCli(['crawl', urls, ...ua, '--out', out, '--resume', ...resolveArgs(v)]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('cannot --resume: ');
    expect(other.stderr).toContain('--product-token ["Other"]');
    const same = await runCli(['crawl', urls, ...ua, '--product-token', 'Other', '--out', out, '--resume', ...resolveArgs(v)]);
    expect(same.code).toBe(0);
    expect(v.requests('bot.test', '/a')).toHaveLength(0);
  });
});

describe('a bare browser User-Agent names no crawler', () => {
  it('check, explain and crawl refuse it with exit 2 and say to pass --product-token', async () => {
    const dir = tmp();
    const robots = file(dir, 'robots.txt', NAMING_FILE);
    const runs = [
      ['check', 'https://x.test/', '--user-agent', HEADERS.chrome],
      ['check', 'https://x.test/', '--user-agent', HEADERS.chrome, '--robots-file', robots],
      ['explain', 'https://x.test/', '--user-agent', HEADERS.chrome],
      ['explain', 'https://x.test/', '--user-agent', HEADERS.chrome, '--robots-file', robots],
      ['crawl', file(dir, 'u.txt', 'http://x.test/\n'), '--user-agent', HEADERS.chrome, '--out', path.join(dir, 'out')],
    ];
    for (const args of runs) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/--user-agent ".*Chrome.*" names no crawler/);
      expect(r.stderr).toContain('Pass --product-token NAME');
      expect(r.stderr).not.toMatch(/productToken|options\.userAgent/); // CLI words, not library ones
    }
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('a header carrying a crawler outside compatible; (AI2Bot, Applebot) is refused with its name suggested', async () => {
    const applebot =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 14_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.0.3 Mobile/15E148 Safari/604.1 (Applebot/0.1; +http://www.apple.com/go/applebot)';
    const robots = file(tmp(), 'robots.txt', NAMING_FILE);
    for (const [ua, name] of [[HEADERS.ai2bot, 'AI2Bot'], [applebot, 'Applebot']]) {
      for (const cmd of ['check', 'explain']) {
        const r = await runCli([cmd, 'https://x.test/', '--user-agent', ua, '--robots-file', robots]);
        expect(r.code, `${cmd} ${name}`).toBe(2);
        expect(r.stderr).toContain('names no crawler');
        expect(r.stderr).toContain(`pass --product-token ${name},`);
        expect(r.stderr).not.toContain('--product-token NAME');
      }
    }
  });

  it('an empty --user-agent with --robots-file is exit 2 too', async () => {
    const robots = file(tmp(), 'robots.txt', NAMING_FILE);
    for (const cmd of ['check', 'explain']) {
      const r = await runCli([cmd, 'https://x.test/', '--user-agent', '', '--robots-file', robots]);
      expect(r.code, cmd).toBe(2);
      expect(r.stderr).toContain('--user-agent is empty');
    }
  });
});

describe('warnings', () => {
  it('a file naming none of the tokens but another product of the header is warned about', async () => {
    const body = 'User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /star/\n';
    const v = await hosts({ 'bad.test': site(body) });
    const robots = file(tmp(), 'robots.txt', body);
    const ua = ['--user-agent', 'MyCrawler/1.0 BadBot/1.0'];
    const text = await runCli(['check', 'https://x.test/page', ...ua, '--robots-file', robots]);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/warning: no group of --robots-file .* names "MyCrawler", so the "\*" group decided; but --user-agent also carries "BadBot", which the group at line 1 names: if that is your crawler, pass --product-token BadBot/);
    const fetched = await runCli(['check', `${v.origin('bad.test')}/page`, `${v.origin('bad.test')}/other`, ...ua, '--json', ...resolveArgs(v)]);
    const lines = json(fetched.stdout);
    expect(lines[0].warnings).toEqual([expect.stringContaining('pass --product-token BadBot')]);
    expect(lines[0].warnings[0]).toContain(`${v.origin('bad.test')}/robots.txt`);
    const e = await runCli(['explain', `${v.origin('bad.test')}/page`, ...ua, ...resolveArgs(v)]);
    expect(e.stdout).toMatch(/^Warning: no group of .* names "MyCrawler"/m);
    // Once the token is given, the file names it: no warning, and BadBot's group decides.
    const given = await runCli(['check', 'https://x.test/page', ...ua, '--product-token', 'BadBot', '--robots-file', robots]);
    expect(given.code).toBe(1);
    expect(given.stderr).toBe('');
  });
});
