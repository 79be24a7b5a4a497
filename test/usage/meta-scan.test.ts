// The crawl reads a page's usage meta tags only when its octets hold a `<meta` tag: that search
// must find the tag however it is cased or spaced, and only a tag named meta.
import { expect, test } from 'vitest';
import { UsageCheck } from '../../src/crawl/usage-check.js';
import type { Decision } from '../../src/gate/types.js';
import type { Hop } from '../../src/crawl/types.js';

const check = new UsageCheck({ productTokens: ['TestBot'] });
const decision = { productToken: 'TestBot' } as Decision;
const hop = { url: 'http://a.test/p', headers: { 'content-type': 'text/html; charset=utf-8' } } as unknown as Hop;
const kinds = (html: string) => check.document(decision, hop, new TextEncoder().encode(html), null).usage.signals.map((s) => s.kind);

test.each([
  '<html><head><meta name="robots" content="noai"></head></html>',
  '<HTML><HEAD><META NAME="robots" CONTENT="noai"></HEAD></HTML>',
  '<html><head><Meta\nname="robots" content="noai"></head></html>',
  '<html><head><meta\tname="robots" content="noai"></head></html>',
  '<p>é ü</p><meta name="robots" content="noai">',
])('finds the tag in %j', (html) => {
  expect(kinds(html)).toEqual(['meta-robots']);
});

test.each(['<html><head><metadata name="robots" content="noai"></head></html>', '<p>no tags of that name</p><meter>', 'x <meta'])('reads no tag in %j', (html) => {
  expect(kinds(html)).toEqual([]);
});
