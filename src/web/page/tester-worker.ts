// The tester's worker: parses, lints and checks off the page's thread, with the very same parser
// the library uses (src/parser, bundled by scripts/bundle-web.mjs).
import { parseRobotsTxt, productToken } from '../../parser/index.js';
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

function evaluate(req: EvaluateRequest): EvaluateResponse {
  const started = performance.now();
  const options = req.url ? { url: req.url } : {};
  const robots = parseRobotsTxt(req.body, options);
  const diagnostics = allDiagnostics(robots, req.body, options);
  const userAgent = req.userAgent.trim() || '*';
  const verdicts = req.urls.map((u) => verdict(robots, u, userAgent));
  const crawlDelaySeconds = robots.crawlDelay(userAgent);
  return {
    seq: req.seq,
    diagnostics,
    verdicts,
    productToken: productToken(userAgent),
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
    res = { seq: req.seq, diagnostics: [], verdicts: [], productToken: '', sitemaps: [], elapsedMs: 0, error: String(err instanceof Error ? err.stack ?? err.message : err) };
  }
  (self as unknown as Worker).postMessage(res);
};
