// Crawl set-up is linear in its --resolve entries: collecting them copied the list per entry
// (1.65 s of start-up at 20,000). The crawl command's own option parser and the resolving agent
// built from the entries, at 1x, 10x and 100x.
import { describe, expect, it } from 'vitest';
import { crawlCommand } from '../../src/cli/crawl.js';
import { createResolvingAgent } from '../../src/fetcher/resolving-agent.js';
import { expectLinearGrowth } from '../helpers/growth.js';

const entries = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example:8080:127.0.0.${1 + (i % 250)}`);
const argv = (n: number) => ['urls.txt', '--user-agent', 'Bot/1.0', '--out', 'o', ...entries(n).flatMap((e) => ['--resolve', e])];

describe('--resolve entries', () => {
  it('the crawl command collects every entry, in order', () => {
    const cmd = crawlCommand();
    cmd.parseOptions(argv(3));
    expect(cmd.opts().resolve).toEqual(entries(3));
    // A second command starts from its own empty list.
    const again = crawlCommand();
    again.parseOptions(argv(1));
    expect(again.opts().resolve).toEqual(entries(1));
  });

  it('option parsing grows linearly (500 to 50,000 entries)', () => {
    expectLinearGrowth('crawl --resolve', argv, (args) => crawlCommand().parseOptions(args), 500);
  });

  it('the resolving agent grows linearly (1,000 to 100,000 entries)', () => {
    expectLinearGrowth('createResolvingAgent', entries, (list) => void createResolvingAgent(list).close(), 1_000);
  });
});
