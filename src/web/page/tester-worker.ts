// The tester's worker: parses, lints and checks off the page's thread, with the very same parser
// the library uses (src/parser, bundled by scripts/bundle-web.mjs).
import { parseRobotsTxt, productToken } from '../../parser/index.js';
import { InvalidUserAgentError } from '../../gate/errors.js';
import { crawlerIdentity, otherNamedProducts, tokenInForce, type CrawlerIdentity } from '../../gate/identity.js';
import { allDiagnostics } from '../diagnostics.js';
import type { GroupRef, RobotsTxt } from '../../parser/types.js';
import type { EvaluateRequest, EvaluateResponse, UrlVerdict } from './protocol.js';

/** Every line of the group(s) that applied: their user-agent lines and their rules. */
function groupLines(robots: RobotsTxt, group: GroupRef | null): number[] {
  if (!group) return [];
  const opened = new Set(group.lines);
  const lines = new Set<number>(group.lines);
  for (const g of robots.groups) {
    if (!g.userAgents.some((ua) => opened.has(ua.line))) continue;
    for (const ua of g.userAgents) lines.add(ua.line);
    for (const r of g.rules) lines.add(r.line);
    if (g.crawlDelay) lines.add(g.crawlDelay.line);
  }
  return [...lines].sort((a, b) => a - b);
}

function verdict(robots: RobotsTxt, raw: string, userAgent: string): UrlVerdict {
  const url = raw.trim();
  if (!/^(https?:\/\/|\/)/i.test(url)) {
    return { url, error: 'give an absolute http(s) URL or a path starting with /' };
  }
  try {
    const m = robots.check(url, userAgent);
    return { url, allowed: m.allowed, rule: m.rule, group: m.group, groupLines: groupLines(robots, m.group) };
  } catch (err) {
    return { url, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Why a gate would refuse this identity, in the form's words. */
function identityWords(err: InvalidUserAgentError, given: boolean): string {
  const t = err.productToken ?? '';
  switch (err.problem) {
    case 'empty':
      return 'Enter the User-Agent header your crawler sends: a product token alone cannot be checked against it.';
    case 'header':
      return 'This user agent cannot be sent as an HTTP header (control characters, or characters above U+00FF).';
    case 'not-a-token':
      return given
        ? `"${t}" is not a product token: letters, digits, "_" and "-" only (RFC 9309 §2.2.1).`
        : `The user agent starts with "${t}", which is not a product token (letters, digits, "_" and "-", RFC 9309 §2.2.1): no group names it. Start it with your crawler's name, or enter its product token.`;
    case 'no-crawler':
      return 'This user agent names no crawler: a browser-style "Mozilla/…" string without "compatible; Name/version", so groups can only match it as "Mozilla" (as below), and a gate refuses it. Enter your crawler\'s product token.';
    case 'browser-product':
      return `"${t}" names a browser or platform, not a crawler: every browser-style header carries it and no site names a crawler by it, so a gate refuses it. Enter your crawler's own name.`;
    case 'not-in-user-agent':
      return `The product token "${t}" does not appear in the user agent as a product ("${t}/1.0", "${t};" or "${t})"): a site could not tell that its "User-agent: ${t}" lines are the ones you obey, and a gate refuses this pair.`;
  }
}

function evaluate(req: EvaluateRequest): EvaluateResponse {
  const started = performance.now();
  const options = req.url ? { url: req.url } : {};
  const robots = parseRobotsTxt(req.body, options);
  const diagnostics = allDiagnostics(robots, req.body, options);
  const tokens = req.productTokens ?? [];
  // The same identity checks as the gate and the CLI; an empty form stands for "any crawler" (`*`).
  let identity: CrawlerIdentity | undefined;
  let identityError: string | undefined;
  if (req.userAgent.trim() !== '' || tokens.length > 0) {
    try {
      identity = crawlerIdentity(req.userAgent, tokens.length ? tokens : undefined);
    } catch (err) {
      if (!(err instanceof InvalidUserAgentError)) throw err;
      identityError = identityWords(err, tokens.length > 0);
    }
  }
  const matchAs = identity ? tokenInForce(robots, identity.tokens) : req.userAgent.trim() || '*';
  const verdicts = req.urls.map((u) => verdict(robots, u, matchAs));
  const crawlDelaySeconds = robots.crawlDelay(matchAs);
  const tokenFacts = identity
    ? identity.source === 'given'
      ? { productTokenSource: 'product-token' as const, skippedTokens: identity.tokens.slice(0, identity.tokens.indexOf(matchAs)) }
      : { productTokenSource: 'user-agent' as const, productTokenReadFrom: identity.readFrom! }
    : { identityError };
  const fallback = robots.names('*') ? 'so the "*" group decided' : 'so no group applies';
  const warnings = identity
    ? otherNamedProducts(robots, identity).map(
        ({ product, line }) =>
          `No group names ${identity!.tokens.map((t) => `"${t}"`).join(', ')}, ${fallback}; but the user agent also carries "${product}", which the group at line ${line} names: if that is your crawler, enter ${product} as its product token.`,
      )
    : [];
  return {
    seq: req.seq,
    diagnostics,
    verdicts,
    productToken: identity ? matchAs : productToken(matchAs),
    ...tokenFacts,
    warnings,
    ...(crawlDelaySeconds !== undefined ? { crawlDelaySeconds } : {}),
    sitemaps: robots.sitemaps,
    elapsedMs: performance.now() - started,
  };
}

self.onmessage = (event: MessageEvent<EvaluateRequest>) => {
  const req = event.data;
  let res: EvaluateResponse;
  try {
    res = evaluate(req);
  } catch (err) {
    // The parser promises not to throw on any input; if it ever does, the page must say so, not hang.
    res = { seq: req.seq, diagnostics: [], verdicts: [], productToken: '', warnings: [], sitemaps: [], elapsedMs: 0, error: String(err instanceof Error ? err.stack ?? err.message : err) };
  }
  (self as unknown as Worker).postMessage(res);
};
