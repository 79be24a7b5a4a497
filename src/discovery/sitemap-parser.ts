// Pulls entries out of a sitemap's text as it streams in: XML (urlset, sitemapindex, RSS, Atom)
// through saxes, or a plain list of URLs, one a line (sitemaps.org §"Text file"). Nothing is
// kept but the entry being read, so a 50 MB sitemap costs one chunk and one entry.
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { SitemapFormat } from './types.js';

/** One `<url>` (or feed item) or one `<sitemap>` of an index, fields as written (trimmed). */
export interface SitemapEntry {
  readonly kind: 'url' | 'sitemap';
  readonly loc: string;
  readonly lastmod?: string;
  readonly changefreq?: string;
  readonly priority?: string;
}

/** Problems kept verbatim at most; the rest are counted. */
const MAX_PROBLEMS = 5;
/** Characters kept of one field or one text line: a URL over 2,048 is dropped anyway. */
const MAX_FIELD = 4_096;
/** Elements open at once at most (a sitemap needs 4, a feed with extensions about 8). saxes keeps
 *  an entry per open element, and so did we: 4,000,000 nested tags, 11.7 KB gzipped, held 1.3 GB. */
export const MAX_DEPTH = 64;
/** Attributes of one element at most (saxes holds them all until the tag ends: 2,000,000 on one
 *  `<url>` held 555 MB). */
export const MAX_ATTRIBUTES = 256;

/** `&` not starting an entity or character reference (XML 1.0 §4.1). */
const BARE_AMP = /&(?![A-Za-z_][A-Za-z0-9._-]*;|#[0-9]+;|#x[0-9A-Fa-f]+;)/g;
/** Characters of one reference at most, `&` and `;` included (longer ones are not ours to wait for). */
const MAX_REFERENCE = 40;

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/** How many characters at the end of `s` may be the start of something the next chunk finishes. */
function heldTail(s: string, inCdata: boolean): number {
  if (inCdata) {
    // `]` or `]]` may be the start of the closing `]]>`.
    return s.endsWith(']]') ? 2 : s.endsWith(']') ? 1 : 0;
  }
  let hold = 0;
  const amp = s.lastIndexOf('&');
  if (amp >= 0 && s.length - amp < MAX_REFERENCE && s.indexOf(';', amp) < 0) hold = s.length - amp;
  // A cut CDATA opening marker (`<`, `<!`, … `<![CDATA`).
  for (let n = Math.min(CDATA_OPEN.length - 1, s.length); n > 0; n--) {
    if (CDATA_OPEN.startsWith(s.slice(s.length - n))) {
      hold = Math.max(hold, n);
      break;
    }
  }
  return hold;
}

const ROOTS: Record<string, SitemapFormat> = { urlset: 'urlset', sitemapindex: 'sitemapindex', rss: 'rss', rdf: 'rss', feed: 'atom', html: 'html' };
/** The element each format wraps one entry in. */
const RECORD: Partial<Record<SitemapFormat, string>> = { urlset: 'url', sitemapindex: 'sitemap', rss: 'item', atom: 'entry' };
/** Field element (local name) → entry field, per format. RSS dates and Atom `updated` are the
 *  feeds' equivalent of `<lastmod>`. */
const FIELDS: Partial<Record<SitemapFormat, Record<string, keyof Fields>>> = {
  urlset: { loc: 'loc', lastmod: 'lastmod', changefreq: 'changefreq', priority: 'priority' },
  sitemapindex: { loc: 'loc', lastmod: 'lastmod' },
  rss: { link: 'loc', pubdate: 'lastmod', date: 'lastmod' },
  atom: { updated: 'lastmod' },
};

interface Fields {
  loc?: string;
  lastmod?: string;
  changefreq?: string;
  priority?: string;
}

const local = (name: string) => {
  const i = name.indexOf(':');
  return (i < 0 ? name : name.slice(i + 1)).toLowerCase();
};

/**
 * Feed it decoded text with `write`, then `end()`. `onEntry` is called synchronously for each
 * complete entry. Malformed XML is reported in `problems` and parsing goes on where saxes can, so
 * what parsed before (and after) the fault is kept. `done` turns true when the rest of the body
 * cannot hold entries (an HTML page, an unknown root element): the caller may stop reading.
 */
export class SitemapParser {
  format: SitemapFormat | undefined;
  readonly problems: string[] = [];
  problemCount = 0;
  done = false;
  /** True when `done` came from a shape no sitemap has (MAX_DEPTH, MAX_ATTRIBUTES): a cap. */
  capped = false;

  #xml: SaxesParser | undefined;
  #text: { line: string; overlong: boolean } | undefined;
  #stack: string[] = [];
  #record: Fields | undefined;
  #recordDepth = 0;
  #field: keyof Fields | undefined;
  #value = '';
  #carry = '';
  #bareAmp = false;
  #inCdata = false;
  #attributes = 0;

  constructor(private readonly onEntry: (entry: SitemapEntry) => void) {}

  write(chunk: string): void {
    if (this.done || chunk === '') return;
    if (this.#xml === undefined && this.#text === undefined) {
      const s = chunk.replace(/^\uFEFF/, '').trimStart();
      if (s === '') return; // leading whitespace only so far: decide on the first real character
      if (s[0] === '<') this.#startXml();
      else {
        this.format = 'text';
        this.#text = { line: '', overlong: false };
      }
      chunk = s;
    }
    if (this.#xml) this.#writeXml(chunk);
    else this.#writeText(chunk);
  }

  /** A bare `&` (an unescaped query string, the commonest fault of real sitemaps) makes saxes
   *  read the rest of the file as one entity name: it is escaped before saxes sees it, and
   *  reported once. A possible reference cut by the chunk boundary waits for the next chunk. */
  #writeXml(chunk: string): void {
    let s = this.#carry + chunk;
    this.#carry = '';
    // Hold back a tail that may be cut mid-way: a reference (`&am`), or a CDATA marker (`<![CD`,
    // `]]`), so the next chunk completes it.
    const hold = heldTail(s, this.#inCdata);
    if (hold > 0) {
      this.#carry = s.slice(s.length - hold);
      s = s.slice(0, s.length - hold);
    }
    this.#xml!.write(this.#escape(s));
  }

  /** Escape bare `&` outside CDATA sections (inside one, `&` is literal already). */
  #escape(s: string): string {
    let out = '';
    let pos = 0;
    while (pos < s.length) {
      if (this.#inCdata) {
        const close = s.indexOf(CDATA_CLOSE, pos);
        if (close < 0) return out + s.slice(pos);
        out += s.slice(pos, close + CDATA_CLOSE.length);
        pos = close + CDATA_CLOSE.length;
        this.#inCdata = false;
        continue;
      }
      const open = s.indexOf(CDATA_OPEN, pos);
      const text = s.slice(pos, open < 0 ? s.length : open);
      const escaped = text.replace(BARE_AMP, '&amp;');
      if (escaped.length !== text.length && !this.#bareAmp) {
        this.#bareAmp = true;
        this.#problem('a bare "&" (not escaped as &amp;) was read as a literal "&"');
      }
      out += escaped;
      if (open < 0) return out;
      out += CDATA_OPEN;
      pos = open + CDATA_OPEN.length;
      this.#inCdata = true;
    }
    return out;
  }

  end(): void {
    if (this.#xml) {
      if (this.#carry !== '') this.#xml.write(this.#escape(this.#carry));
      if (!this.done) this.#xml.close();
    } else if (this.#text) {
      this.#line(this.#text.line, this.#text.overlong);
    }
    this.format ??= 'unknown';
  }

  #problem(message: string): void {
    this.problemCount++;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(message);
  }

  #writeText(chunk: string): void {
    const t = this.#text!;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      const piece = chunk.slice(start, nl < 0 ? chunk.length : nl);
      if (t.line.length + piece.length > MAX_FIELD) {
        t.overlong = true;
        t.line = (t.line + piece).slice(0, MAX_FIELD + 1);
      } else t.line += piece;
      if (nl < 0) return;
      this.#line(t.line, t.overlong);
      t.line = '';
      t.overlong = false;
      start = nl + 1;
    }
  }

  #line(line: string, overlong: boolean): void {
    const loc = line.trim();
    if (loc === '' || loc.startsWith('#')) return;
    this.onEntry({ kind: 'url', loc: overlong ? loc + '…' : loc });
  }

  #startXml(): void {
    const p = new SaxesParser({ xmlns: false, position: true });
    this.#xml = p;
    p.on('error', (err) => this.#problem(err.message));
    p.on('doctype', (d) => {
      if (/^\s*html\b/i.test(d)) this.#html();
    });
    p.on('opentagstart', () => {
      this.#attributes = 0;
    });
    p.on('attribute', () => {
      if (++this.#attributes === MAX_ATTRIBUTES + 1) this.#stop(`an element with more than ${MAX_ATTRIBUTES} attributes`);
    });
    p.on('opentag', (tag) => this.#open(tag));
    p.on('closetag', (tag) => this.#close(tag));
    p.on('text', (t) => this.#chars(t));
    p.on('cdata', (t) => this.#chars(t));
  }

  /** A shape no sitemap has, whose reading would cost without bound: what was read is kept, the
   *  rest of the body is not read (the caller sees `done`). */
  #stop(what: string): void {
    if (this.done) return;
    this.#problem(`${what}: no sitemap is shaped so; the rest was not read`);
    this.done = true;
    this.capped = true;
  }

  #html(): void {
    this.format = 'html';
    this.#problem('an HTML page, not a sitemap');
    this.done = true;
  }

  #open(tag: SaxesTagPlain): void {
    if (this.done) return;
    if (this.#stack.length >= MAX_DEPTH) return this.#stop(`elements nested more than ${MAX_DEPTH} deep`);
    const name = local(tag.name);
    this.#stack.push(name);
    if (this.#stack.length === 1) {
      const format = ROOTS[name];
      if (format === 'html') return this.#html();
      if (format === undefined) {
        this.format = 'unknown';
        this.#problem(`root element <${tag.name}> is not a sitemap (urlset, sitemapindex), RSS or Atom feed`);
        this.done = true;
        return;
      }
      this.format = format;
      return;
    }
    const format = this.format!;
    if (this.#record === undefined) {
      if (name === RECORD[format]) {
        this.#record = {};
        this.#recordDepth = this.#stack.length;
      }
      return;
    }
    // Only the record's own children: <image:loc> inside <image:image> is not the page's <loc>.
    if (this.#stack.length !== this.#recordDepth + 1) return;
    if (format === 'atom' && name === 'link') {
      const rel = tag.attributes.rel;
      const href = tag.attributes.href;
      if (typeof href === 'string' && (rel === undefined || rel === 'alternate') && this.#record.loc === undefined) this.#record.loc = href.trim();
      return;
    }
    const field = FIELDS[format]?.[name];
    if (field !== undefined) {
      this.#field = field;
      this.#value = '';
    }
  }

  #chars(t: string): void {
    if (this.#field === undefined || this.#value.length > MAX_FIELD) return;
    this.#value += t.length > MAX_FIELD ? t.slice(0, MAX_FIELD + 1) : t;
  }

  #close(_tag: SaxesTagPlain): void {
    if (this.done) return;
    const depth = this.#stack.length;
    this.#stack.pop();
    const record = this.#record;
    if (record === undefined) return;
    if (this.#field !== undefined && depth === this.#recordDepth + 1) {
      const v = this.#value.trim();
      if (v !== '' && record[this.#field] === undefined) record[this.#field] = this.#value.length > MAX_FIELD ? v + '…' : v;
      this.#field = undefined;
      this.#value = '';
      return;
    }
    if (depth !== this.#recordDepth) return;
    this.#record = undefined;
    if (record.loc === undefined) {
      this.#problem(`a <${RECORD[this.format!]}> without a location`);
      return;
    }
    this.onEntry({
      kind: this.format === 'sitemapindex' ? 'sitemap' : 'url',
      loc: record.loc,
      ...(record.lastmod !== undefined ? { lastmod: record.lastmod } : {}),
      ...(record.changefreq !== undefined ? { changefreq: record.changefreq } : {}),
      ...(record.priority !== undefined ? { priority: record.priority } : {}),
    });
  }
}
