// Every usage signal, read into UsageSignal records: robots.txt lines, response headers, HTML meta
// and TDMRep. Each reader is pure; fetching (tdmrep.json, the document) is the caller's.
import { Parser } from 'htmlparser2';
import type { UsageMatch } from '../parser/index.js';
import { applicableDirectives, directivePurposes } from './directives.js';
import { tdmRepRuleFor, type TdmRepFile } from './tdmrep.js';
import type { Purpose, UsageSignal } from './types.js';
import { readPreferences } from './vocabulary.js';

/** The robots.txt usage lines that apply to a URL (from `RobotsTxt.usage`), as signals. */
export function signalsFromRobots(match: UsageMatch, robotsUrl?: string): UsageSignal[] {
  return [...match.contentUsage, ...match.contentSignal].map((l) => ({
    kind: l.kind,
    source: 'robots.txt' as const,
    value: l.value,
    line: l.line,
    ...(robotsUrl !== undefined ? { url: robotsUrl } : {}),
    purposes: readPreferences(l.kind, l.value).purposes,
  }));
}

/** Options shared by the document readers. */
export interface DocumentContext {
  /** The crawler's product tokens, any case: scoped directives (`gptbot: noai`) apply to these. */
  readonly productTokens: readonly string[];
  /** The response's Content-Type, for `noimageai`. */
  readonly contentType?: string;
}

function isImage(ctx: DocumentContext): boolean {
  return /^\s*image\//i.test(ctx.contentType ?? '');
}

function directiveSignal(kind: 'x-robots-tag' | 'meta-robots', value: string, ctx: DocumentContext): UsageSignal {
  const tokens = ctx.productTokens.map((t) => t.toLowerCase());
  const purposes: Partial<Record<Purpose, 'reserved'>> = {};
  for (const d of applicableDirectives(value, tokens)) Object.assign(purposes, directivePurposes(d, isImage(ctx)));
  return { kind, source: kind === 'x-robots-tag' ? 'header' : 'html', value, purposes };
}

function tdmSignal(kind: 'tdmrep-header' | 'tdmrep-meta' | 'tdmrep-file', reservation: string, policy: string | undefined, url?: string): UsageSignal | null {
  const r = reservation.trim();
  if (r !== '0' && r !== '1') return null;
  const v = r === '1' ? 'reserved' : 'allowed';
  return {
    kind,
    source: kind === 'tdmrep-header' ? 'header' : kind === 'tdmrep-meta' ? 'html' : 'tdmrep.json',
    value: `tdm-reservation=${r}${policy ? `; tdm-policy=${policy}` : ''}`,
    ...(url !== undefined ? { url } : {}),
    // TDM (EU DSM Directive art. 4) covers both training and feeding a model's answers.
    purposes: { 'ai-train': v, 'ai-input': v },
  };
}

/** Signals of a response's headers (names lower-case): Content-Usage, X-Robots-Tag, tdm-reservation. */
export function signalsFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>>, ctx: DocumentContext): UsageSignal[] {
  const out: UsageSignal[] = [];
  const get = (name: string): string[] => {
    const v = headers[name];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  for (const v of get('content-usage')) {
    out.push({ kind: 'content-usage', source: 'header', value: v, purposes: readPreferences('content-usage', v).purposes });
  }
  for (const v of get('x-robots-tag')) out.push(directiveSignal('x-robots-tag', v, ctx));
  for (const v of get('tdm-reservation')) {
    const s = tdmSignal('tdmrep-header', v, get('tdm-policy')[0]);
    if (s) out.push(s);
  }
  return out;
}

/** HTML is fed to the tokenizer in chunks, so reading can stop at `<body>` without tokenizing the rest. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Signals of an HTML document's `<meta>` tags in its head: `robots` and crawler-named robots metas
 * (`<meta name="gptbot" content="noai">`), and `tdm-reservation` / `tdm-policy`. Reading stops at
 * `<body>` (however long the head is: a reservation after a megabyte of inline script still
 * counts). Never throws.
 */
export function signalsFromHtml(html: string, ctx: DocumentContext): UsageSignal[] {
  const out: UsageSignal[] = [];
  const tokens = ctx.productTokens.map((t) => t.toLowerCase());
  let tdmReservation: string | undefined;
  let tdmPolicy: string | undefined;
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (done) return;
        if (name === 'body') {
          done = true;
          return;
        }
        if (name !== 'meta') return;
        const metaName = (attrs.name ?? '').trim().toLowerCase();
        const content = attrs.content ?? '';
        if (metaName === 'robots' || tokens.includes(metaName)) out.push(directiveSignal('meta-robots', metaName === 'robots' ? content : `${metaName}: ${content}`, ctx));
        else if (metaName === 'tdm-reservation') tdmReservation ??= content;
        else if (metaName === 'tdm-policy') tdmPolicy ??= content;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  try {
    for (let at = 0; at < html.length && !done; at += CHUNK_CHARS) parser.write(html.slice(at, at + CHUNK_CHARS));
    parser.end();
  } catch {
    // htmlparser2 is tolerant; whatever it read before a fault still counts.
  }
  if (tdmReservation !== undefined) {
    const s = tdmSignal('tdmrep-meta', tdmReservation, tdmPolicy);
    if (s) out.push(s);
  }
  return out;
}

/** A TDMRep file that could not be read (5xx, 429, network): under a purpose it reserves, as an
 *  unreachable robots.txt disallows (RFC 9309 §2.3.1.4), until a later read succeeds. */
export function tdmRepUnreachable(fileUrl: string, status: number | string): UsageSignal {
  return { kind: 'tdmrep-file', source: 'tdmrep.json', value: `unreachable (${status})`, url: fileUrl, purposes: { 'ai-train': 'reserved', 'ai-input': 'reserved' } };
}

/** The TDMRep file's rule for `path`, as a signal (null when no rule covers it). */
export function signalFromTdmRep(file: TdmRepFile, path: string, fileUrl: string): UsageSignal | null {
  const rule = tdmRepRuleFor(file, path);
  return rule ? tdmSignal('tdmrep-file', String(rule.reservation), rule.policy, fileUrl) : null;
}
