// The robots.txt tester page. It only renders: parsing, linting and checking happen in a worker
// (tester-worker.ts), debounced, with a watchdog, so no input can freeze the page.
import type { Diagnostic } from '../../parser/types.js';
import { decodeRobotsText } from '../../parser/decode.js';
import type { EvaluateRequest, EvaluateResponse, UrlVerdict } from './protocol.js';
import { formatBytes, plural } from '../../report/format.js';
import { byId, el } from './dom.js';

const DEBOUNCE_MS = 150;
/** A parse that takes longer than this is stopped and reported; the page starts a fresh worker. */
const WATCHDOG_MS = 8000;
/** Lines drawn in the file view at once; a bigger file shows a window around the focused line. */
const WINDOW_LINES = 2000;
/** Characters drawn per line (binary files can be one 5 MB "line"). */
const MAX_LINE_CHARS = 2000;

const SAMPLE_ROBOTS = `# Sample: edit me, or fetch a site's robots.txt above.
User-agent: *
Disallow: /private/
Allow: /private/press/
Crawl-delay: 2

User-agent: MyBot
Disallow: /search
Allow: /search/about
Disalow: /typo

Sitemap: https://example.com/sitemap.xml
`;
const SAMPLE_URLS = `https://example.com/
https://example.com/search?q=robots
https://example.com/search/about
https://example.com/private/report.pdf
`;

const robotsInput = byId<HTMLTextAreaElement>('robots');
const uaInput = byId<HTMLInputElement>('ua');
const tokenInput = byId<HTMLInputElement>('product-token');
const urlsInput = byId<HTMLTextAreaElement>('urls');
const fetchForm = byId<HTMLFormElement>('fetch-form');
const fetchUrl = byId<HTMLInputElement>('fetch-url');
const fetchBtn = byId<HTMLButtonElement>('fetch-btn');
const fetchStatus = byId('fetch-status');
const statusEl = byId('status');
const verdictList = byId('verdicts');
const fileView = byId('file-view');
const fileCaption = byId('file-caption');
const diagList = byId('diagnostics');
const uaInfo = byId('ua-info');
const uaWarnings = byId('ua-warnings');
const robotsNote = byId('robots-note');
// The server refuses /api/fetch without the token it wrote into this page (cross-site requests).
const fetchToken = document.querySelector<HTMLMetaElement>('meta[name="robots-gate-token"]')?.content ?? '';

/** A body held outside the textarea: fetched bytes (parsed as served, so BOM and encoding findings
 *  are real), or a paste too large to edit comfortably. Any edit of the textarea drops it. */
interface Held {
  body: string | Uint8Array;
  /** The whole text, for the file view. */
  text: string;
  /** Where it was fetched from (resolves relative Sitemap lines). */
  url?: string;
  /** The origin it governs: the one whose /robots.txt was asked for, wherever a redirect took the
   *  request (RFC 9309 §2.3.1.2: the rules of the redirect's target apply to the origin asked). */
  origin?: string;
  /** The textarea's value when it was loaded ('' when too large to show). */
  shown: string;
}

/** Bodies larger than this are parsed and drawn in the file view but kept out of the textarea:
 *  laying out megabytes of text in a textarea freezes a browser for seconds. */
const EDITABLE_MAX_CHARS = 512 * 1024;
const DEFAULT_PLACEHOLDER = 'Paste a robots.txt here';

let held: Held | null = null;
let lines: string[] = [];
let last: EvaluateResponse | null = null;
let selected = 0;
let focusLine = 0;
let seq = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let watchdog: ReturnType<typeof setTimeout> | undefined;
let worker = startWorker();

function startWorker(): Worker {
  const w = new Worker('/assets/tester-worker.js', { type: 'module' });
  w.onmessage = (e: MessageEvent<EvaluateResponse>) => onResult(e.data);
  w.onerror = (e) => {
    e.preventDefault();
    clearTimeout(watchdog);
    setStatus(`The parser stopped with an error: ${e.message || 'unknown error'}. Edit the input to try again.`, true);
  };
  return w;
}

/** Keep a body outside the textarea (or stop keeping one); the textarea shows it when small enough. */
function hold(next: Held | null): void {
  held = next;
  if (next) robotsInput.value = next.shown;
  const note = next && next.shown === ''
    ? `${formatBytes(next.text.length)} loaded: too large to edit here, so it is shown in the file view only. Type or paste to replace it.`
    : '';
  robotsNote.textContent = note;
  robotsInput.placeholder = note || DEFAULT_PLACEHOLDER;
}

/** A paste too large for the textarea is held instead of inserted. */
function onPaste(event: ClipboardEvent): void {
  const text = event.clipboardData?.getData('text/plain') ?? '';
  if (text.length <= EDITABLE_MAX_CHARS) return;
  event.preventDefault();
  hold({ body: text, text, shown: '' });
  setStatus(`Pasted ${formatBytes(text.length)}: parsing…`);
  evaluate();
}

function setStatus(text: string, isError = false): void {
  statusEl.textContent = text;
  statusEl.classList.toggle('error', isError);
}

function schedule(): void {
  clearTimeout(timer);
  timer = setTimeout(evaluate, DEBOUNCE_MS);
}

function evaluate(): void {
  if (held && robotsInput.value !== held.shown) hold(null);
  const text = held ? held.text : robotsInput.value;
  lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const urls = urlsInput.value.split(/\r?\n/).map((u) => u.trim()).filter(Boolean).slice(0, 500);
  const req: EvaluateRequest = {
    seq: ++seq,
    body: held ? held.body : text,
    ...(held?.url ? { url: held.url } : {}),
    userAgent: uaInput.value,
    // Several tokens, by comma or space, fall back in order (as --product-token repeated).
    productTokens: tokenInput.value.split(/[\s,]+/).filter(Boolean),
    urls,
  };
  if (text.length > 1_000_000) setStatus(`Parsing ${formatBytes(text.length)}…`);
  clearTimeout(watchdog);
  watchdog = setTimeout(() => {
    worker.terminate();
    worker = startWorker();
    setStatus(`Parsing took longer than ${WATCHDOG_MS / 1000} s and was stopped. Try a smaller file.`, true);
  }, WATCHDOG_MS);
  worker.postMessage(req);
}

function onResult(res: EvaluateResponse): void {
  if (res.seq !== seq) return; // an older answer; a newer request is in flight
  clearTimeout(watchdog);
  if (res.error) {
    setStatus(`The parser failed on this input: ${res.error.split('\n')[0]}`, true);
    return;
  }
  last = res;
  if (selected >= res.verdicts.length) selected = 0;
  const counts = { error: 0, warning: 0, info: 0 };
  for (const d of res.diagnostics) counts[d.severity]++;
  setStatus(
    `${plural(lines.length, 'line')} · ${plural(res.verdicts.length, 'URL')} checked · ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${plural(counts.info, 'note')} · ${res.elapsedMs.toFixed(1)} ms`,
  );
  uaInfo.classList.toggle('error', res.identityError !== undefined);
  uaInfo.textContent = (res.identityError ? `${res.identityError} Matched as "${res.productToken}". ` : '') +
    `Product token: ${res.productToken || '(none)'}${tokenSource(res)}` +
    (res.crawlDelaySeconds !== undefined ? ` · Crawl-delay for it: ${res.crawlDelaySeconds} s` : '') +
    (res.sitemaps.length ? ` · ${res.sitemaps.length} sitemap${res.sitemaps.length > 1 ? 's' : ''}` : '');
  uaWarnings.replaceChildren(...res.warnings.map((w) => el('li', {}, w)));
  renderVerdicts();
  renderDiagnostics();
  const v = res.verdicts[selected];
  focusLine = v?.rule?.line ?? v?.groupLines?.[0] ?? 0;
  renderFile();
}

/** Where the token came from: `, read from "compatible; GPTBot/1.1"`, `, as given`. */
function tokenSource(res: EvaluateResponse): string {
  if (res.productTokenSource === 'user-agent') return `, read from "${res.productTokenReadFrom}" in the user agent`;
  if (res.productTokenSource !== 'product-token') return '';
  const skipped = res.skippedTokens ?? [];
  return `, as given${skipped.length ? ` (${skipped.join(', ')} ${skipped.length > 1 ? 'are' : 'is'} not named in this file)` : ''}`;
}

function explain(v: UrlVerdict): string {
  if (v.error) return v.error;
  const group = v.group ? `group for ${v.group.userAgents.join(', ')} (line ${v.group.lines.join(', ')})` : 'no group applies to this crawler';
  if (!v.rule) return `No rule matched: allowed. ${group[0]!.toUpperCase()}${group.slice(1)}.`;
  const name = v.rule.type === 'allow' ? 'Allow' : 'Disallow';
  return `${name}: ${v.rule.pattern} on line ${v.rule.line}, in the ${group}.`;
}

/** `https://host:port` of a URL, or undefined when it is none. */
function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The origin the file in the view governs: the one it was fetched from; for a paste, the first
 *  checked URL's (a robots.txt governs its own origin only, RFC 9309 §2.3). */
function fileOrigin(res: EvaluateResponse): { origin: string; fetched: boolean } | undefined {
  const fetched = held?.origin ?? (held?.url ? originOf(held.url) : undefined);
  if (fetched) return { origin: fetched, fetched: true };
  for (const v of res.verdicts) {
    const o = v.error ? undefined : originOf(v.url);
    if (o) return { origin: o, fetched: false };
  }
  return undefined;
}

/** A warning for a URL on another origin than the file's: it is judged here by a file that is not
 *  its robots.txt, so the verdict says nothing about what its own site allows. */
function otherOrigin(v: UrlVerdict, file: { origin: string; fetched: boolean } | undefined): string | undefined {
  const o = v.error ? undefined : originOf(v.url);
  if (!file || !o || o === file.origin) return undefined;
  const whose = file.fetched ? `this file is ${file.origin}'s robots.txt` : `not the first URL's (${file.origin}), and one robots.txt governs one origin`;
  return `Another origin: ${whose}. ${o} has its own at ${o}/robots.txt (RFC 9309 §2.3): this verdict is only what this file would say.`;
}

function renderVerdicts(): void {
  const res = last;
  verdictList.replaceChildren();
  if (!res || res.verdicts.length === 0) {
    verdictList.append(el('li', { class: 'empty-note' }, 'Add URLs to check, one a line.'));
    return;
  }
  const file = fileOrigin(res);
  res.verdicts.forEach((v, i) => {
    const kind = v.error ? 'invalid' : v.allowed ? 'allowed' : 'disallowed';
    const warning = otherOrigin(v, file);
    const button = el('button', { type: 'button', 'aria-pressed': String(i === selected), 'data-verdict': kind },
      el('span', { class: `badge ${kind}` }, kind === 'invalid' ? 'not checked' : kind),
      el('span', { class: 'url' }, v.url),
      el('span', { class: 'why' }, explain(v)),
      ...(warning ? [el('span', { class: 'other-origin', role: 'note' }, warning)] : []),
    );
    button.addEventListener('click', () => select(i));
    verdictList.append(el('li', {}, button));
  });
}

function select(i: number): void {
  selected = i;
  const v = last?.verdicts[i];
  focusLine = v?.rule?.line ?? v?.groupLines?.[0] ?? 0;
  for (const [j, b] of Array.from(verdictList.querySelectorAll('button')).entries()) b.setAttribute('aria-pressed', String(j === i));
  renderFile();
}

const SEVERITY_LETTER = { error: 'E', warning: 'W', info: 'i' } as const;

function sevIcon(d: Diagnostic): HTMLElement {
  return el('i', { class: `sev ${d.severity}`, title: `${d.severity}: ${d.message} [${d.code}]`, 'aria-label': d.severity }, SEVERITY_LETTER[d.severity]);
}

function renderDiagnostics(): void {
  diagList.replaceChildren();
  const diags = last?.diagnostics ?? [];
  if (diags.length === 0) {
    diagList.append(el('li', { class: 'empty-note' }, 'No findings: the file is clean.'));
    return;
  }
  for (const d of diags.slice(0, 1000)) {
    const where = d.line > 0 ? `line ${d.line}${d.column ? `:${d.column}` : ''}` : 'file';
    const b = el('button', { type: 'button', 'data-code': d.code }, sevIcon(d), el('span', { class: 'where' }, where),
      el('span', {}, `${d.message} `, el('code', {}, d.code)));
    b.addEventListener('click', () => {
      if (d.line > 0) {
        focusLine = d.line;
        renderFile();
      }
    });
    diagList.append(el('li', {}, b));
  }
  if (diags.length > 1000) diagList.append(el('li', { class: 'empty-note' }, `${diags.length - 1000} more not shown.`));
}

function renderFile(): void {
  const res = last;
  fileView.replaceChildren();
  if (lines.length === 1 && lines[0] === '') {
    fileView.append(el('div', { class: 'empty' }, 'Empty file: every URL is allowed (RFC 9309 §2.2.2: no rule, no group).'));
    fileCaption.textContent = '';
    return;
  }
  const v = res?.verdicts[selected];
  const groupLines = new Set(v?.groupLines ?? v?.group?.lines ?? []);
  const decider = v?.rule?.line;
  const byLine = new Map<number, Diagnostic[]>();
  for (const d of res?.diagnostics ?? []) {
    const list = byLine.get(d.line) ?? [];
    list.push(d);
    byLine.set(d.line, list);
  }
  const whole = byLine.get(0);
  if (whole) {
    for (const d of whole) fileView.append(el('div', { class: 'banner' }, sevIcon(d), ` ${d.message} `, el('code', {}, d.code)));
  }
  const start = Math.max(0, Math.min(lines.length - WINDOW_LINES, (focusLine || 1) - 1 - WINDOW_LINES / 2));
  const end = Math.min(lines.length, start + WINDOW_LINES);
  if (start > 0) fileView.append(el('div', { class: 'more' }, `${start} earlier lines not shown`));
  const frag = document.createDocumentFragment();
  let focusEl: HTMLElement | null = null;
  for (let i = start; i < end; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    const text = raw.length > MAX_LINE_CHARS ? `${raw.slice(0, MAX_LINE_CHARS)} … (${raw.length - MAX_LINE_CHARS} more characters)` : raw;
    const diags = byLine.get(n);
    const classes = ['ln'];
    if (groupLines.has(n)) classes.push('in-group');
    if (n === decider) classes.push('decider', v!.rule!.type);
    if (n === focusLine) classes.push('focus');
    const row = el('div', { class: classes.join(' '), 'data-line': String(n) },
      el('span', { class: 'no' }, String(n)),
      el('span', { class: 'marks' }, ...(diags ? [sevIcon(diags[0]!)] : [])),
      el('span', { class: 'text' }, text || ' '),
    );
    if (diags) row.title = diags.map((d) => `${d.severity}: ${d.message} [${d.code}]`).join('\n');
    if (n === focusLine) focusEl = row;
    frag.append(row);
  }
  fileView.append(frag);
  if (end < lines.length) fileView.append(el('div', { class: 'more' }, `${lines.length - end} later lines not shown`));
  fileCaption.textContent = v && !v.error
    ? v.rule ? `line ${v.rule.line} decided ${v.url}` : `no rule matched ${v.url}`
    : '';
  if (focusEl) {
    const target = focusEl;
    // Scroll only the file view, not the page, so the verdict the person chose stays in sight.
    fileView.scrollTop = Math.max(0, target.offsetTop - fileView.offsetTop - fileView.clientHeight / 3);
  }
}

async function fetchRobots(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const target = fetchUrl.value.trim();
  if (!target) {
    fetchStatus.textContent = 'Type a site URL first, such as https://example.com/.';
    return;
  }
  fetchBtn.disabled = true;
  fetchStatus.classList.remove('error');
  fetchStatus.textContent = `Fetching robots.txt for ${target}…`;
  try {
    const res = await fetch(`/api/fetch?url=${encodeURIComponent(target)}`, {
      headers: { 'x-robots-gate-token': fetchToken },
      signal: AbortSignal.timeout(30_000),
    });
    const data = (await res.json()) as FetchAnswer;
    if (!res.ok || data.error) throw new Error(data.error ?? `the server answered ${res.status}`);
    fetchStatus.textContent = describeFetch(data);
    if (data.kind !== 'parsed') {
      // No file to show: RFC 9309 decides from the status alone, and the text above stays as it was.
      fetchStatus.classList.toggle('error', data.kind === 'unreachable');
      return;
    }
    const bytes = Uint8Array.from(atob(data.bodyBase64 ?? ''), (c) => c.charCodeAt(0));
    // The parser's own decoding, so a UTF-16 file shows as text and its lines as the parser numbers them.
    const text = decodeRobotsText(bytes);
    hold({ body: bytes, text, url: data.finalUrl ?? data.robotsUrl, origin: originOf(data.robotsUrl), shown: text.length > EDITABLE_MAX_CHARS ? '' : text });
    evaluate();
  } catch (err) {
    fetchStatus.classList.add('error');
    const why = err instanceof Error ? (err.name === 'TimeoutError' ? 'no answer within 30 s' : err.message) : String(err);
    fetchStatus.textContent = `Could not fetch: ${why}. The text above is unchanged.`;
  } finally {
    fetchBtn.disabled = false;
  }
}

/** What GET /api/fetch answers (see src/web/server.ts). */
interface FetchAnswer {
  robotsUrl: string;
  finalUrl?: string;
  status: number | string;
  /** The fetcher's class of outcome (RFC 9309 §2.3.1). */
  kind: 'parsed' | 'unavailable' | 'unreachable';
  bodyBase64?: string;
  bytes?: number;
  truncated?: boolean;
  elapsedMs?: number;
  error?: string;
}

function describeFetch(d: FetchAnswer): string {
  const head = `${d.finalUrl ?? d.robotsUrl}: ${d.status}`;
  if (d.kind === 'unreachable') return `${head}. Unreachable: RFC 9309 §2.3.1.4 says to assume every URL is disallowed. The text above is unchanged.`;
  if (d.kind === 'unavailable') return `${head}. Unavailable: RFC 9309 §2.3.1.3 says every URL is allowed. The text above is unchanged.`;
  return `${head}, ${formatBytes(d.bytes ?? 0)}${d.truncated ? ' (cut at the size cap)' : ''} in ${Math.round(d.elapsedMs ?? 0)} ms. Loaded below.`;
}

robotsInput.addEventListener('input', schedule);
robotsInput.addEventListener('paste', onPaste);
uaInput.addEventListener('input', schedule);
tokenInput.addEventListener('input', schedule);
urlsInput.addEventListener('input', schedule);
fetchForm.addEventListener('submit', (e) => void fetchRobots(e as SubmitEvent));

if (!robotsInput.value) robotsInput.value = SAMPLE_ROBOTS;
if (!urlsInput.value) urlsInput.value = SAMPLE_URLS;
evaluate();
