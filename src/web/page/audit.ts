// The audit browser page: runs, hosts, each host's robots.txt versions with a diff between any
// two and the time the policy changed, and the URLs that were blocked with the rule that decided.
import { formatTime, plural } from '../../report/format.js';
import { diffPolicies } from '../../report/policy-diff.js';
import type { PolicyVersion } from '../../report/crawl-record.js';
import type { ApiError, AuditHost, AuditHosts, AuditIndex } from './api.js';
import { byId, el } from './dom.js';

const statusEl = byId('audit-status');
const runSelect = byId<HTMLSelectElement>('run');
const hostFilter = byId<HTMLInputElement>('host-filter');
const hostsBody = byId('hosts').querySelector('tbody')!;
const notUrlsSection = byId('not-urls');
const notUrlsBody = notUrlsSection.querySelector('tbody')!;
const detail = byId('host-detail');
const fromSelect = byId<HTMLSelectElement>('diff-from');
const toSelect = byId<HTMLSelectElement>('diff-to');
const diffPickers = byId('diff-pickers');
const boundary = byId('boundary');
const diffView = byId('diff');

let current: AuditHost | null = null;
let selectedHost: string | null = null;

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { signal: AbortSignal.timeout(30_000) });
  const data = (await res.json()) as T | ApiError;
  if (!res.ok || (data as ApiError).error) throw new Error((data as ApiError).error ?? `the server answered ${res.status}`);
  return data as T;
}

function setStatus(text: string, isError = false): void {
  statusEl.textContent = text;
  statusEl.classList.toggle('error', isError);
}

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : 'none');

async function loadIndex(): Promise<void> {
  const index = await getJson<AuditIndex>('/api/audit');
  byId('audit-dir').textContent = `Audit of ${index.dir}`;
  for (const r of index.runs) {
    runSelect.append(el('option', { value: r.runId }, `${r.runId} · ${formatTime(r.startMs)} · ${plural(r.attempts, 'audit row')}`));
  }
  await loadHosts();
}

async function loadHosts(): Promise<void> {
  const params = new URLSearchParams();
  if (runSelect.value) params.set('run', runSelect.value);
  if (hostFilter.value.trim()) params.set('q', hostFilter.value.trim());
  const data = await getJson<AuditHosts>(`/api/audit/hosts?${params}`);
  const t = data.totals;
  setStatus(`${plural(t.sent, 'request')} sent to ${plural(t.hosts, 'host')}, ${plural(t.urls, 'URL')} decided: ${t.fetched} fetched, ${t.blocked} blocked, ${plural(t.error, 'error')}; ${plural(t.policies, 'robots.txt version')}, ${plural(t.policyChanges, 'change')}.` +
    (t.notUrls ? ` ${t.notUrls === 1 ? '1 line was' : `${t.notUrls} lines were`} not a URL.` : ''));
  renderNotUrls(data);
  hostsBody.replaceChildren();
  if (data.hosts.length === 0) hostsBody.append(el('tr', {}, el('td', { colspan: '6', class: 'empty-note' }, hostFilter.value.trim() ? 'No host matches the filter.' : 'No requests in this run.')));
  for (const h of data.hosts) {
    const button = el('button', { type: 'button', 'data-host': h.host }, h.host);
    button.addEventListener('click', () => void loadHost(h.host));
    const row = el('tr', { class: h.host === selectedHost ? 'selected' : '' }, el('td', {}, button),
      ...[h.sent, h.fetched, h.blocked, h.error, h.policyVersions].map((n) => el('td', { class: 'num' }, String(n))));
    hostsBody.append(row);
  }
  if (data.hostsOmitted) {
    hostsBody.append(el('tr', {}, el('td', { colspan: '6', class: 'empty-note' }, `${plural(data.hostsOmitted, 'more host')} not listed: type part of a name in the filter.`)));
  }
  if (selectedHost) await loadHost(selectedHost);
}

/** Lines that were not URLs name no host: listed on their own, never as a nameless host. */
function renderNotUrls(data: AuditHosts): void {
  notUrlsSection.hidden = data.notUrls.length === 0;
  byId('not-urls-h').textContent = `Lines that were not URLs: ${data.notUrls.length + data.notUrlsOmitted}`;
  notUrlsBody.replaceChildren(...data.notUrls.map((l) => el('tr', {}, el('td', { class: 'mono' }, l.text), el('td', {}, l.reason), el('td', {}, l.error ?? '–'))));
  if (data.notUrlsOmitted) notUrlsBody.append(el('tr', {}, el('td', { colspan: '3', class: 'empty-note' }, `${data.notUrlsOmitted} more not listed.`)));
}

async function loadHost(host: string): Promise<void> {
  selectedHost = host;
  for (const row of Array.from(hostsBody.querySelectorAll("tr"))) row.classList.toggle('selected', row.querySelector('button')?.dataset.host === host);
  const run = runSelect.value;
  current = await getJson<AuditHost>(`/api/audit/host?host=${encodeURIComponent(host)}${run ? `&run=${encodeURIComponent(run)}` : ''}`);
  detail.hidden = false;
  byId('host-h').textContent = host;
  const versionsBody = byId('versions').querySelector('tbody')!;
  versionsBody.replaceChildren();
  fromSelect.replaceChildren();
  toSelect.replaceChildren();
  current.versions.forEach((v, i) => {
    versionsBody.append(el('tr', {}, el('td', { class: 'num' }, String(i + 1)), el('td', {}, v.fetchedAt), el('td', {}, String(v.status)),
      el('td', { class: 'mono' }, short(v.sha256)), el('td', { class: 'num' }, String(v.governed)), el('td', { class: 'mono' }, v.finalUrl || v.robotsUrl)));
    const label = `#${i + 1} · ${v.fetchedAt} · ${short(v.sha256)}`;
    fromSelect.append(el('option', { value: String(i) }, label));
    toSelect.append(el('option', { value: String(i) }, label));
  });
  if (current.versions.length === 0) versionsBody.append(el('tr', {}, el('td', { colspan: '6', class: 'empty-note' }, 'No robots.txt body was recorded (unavailable or unreachable).')));
  const versionOf = new Map(current.versions.map((v, i) => [v.sha256, `#${i + 1}`]));
  const indexOf = new Map(current.versions.map((v, i) => [v.sha256, i]));
  // Every change in time order, a change back to an earlier version too (#2 → #1): the versions
  // table lists each text once, so a return to one was nowhere to be seen.
  const changesBody = byId('changes').querySelector('tbody')!;
  changesBody.replaceChildren();
  const comparable = (c: { oldSha256: string | null; newSha256: string | null }) => c.oldSha256 !== null && c.newSha256 !== null && indexOf.has(c.oldSha256) && indexOf.has(c.newSha256);
  for (const c of current.changes) {
    const name = (sha: string | null) => (sha ? versionOf.get(sha) ?? short(sha) : 'none');
    const cells = [el('td', {}, c.at), el('td', { class: 'mono' }, c.runId), el('td', {}, name(c.oldSha256)), el('td', {}, name(c.newSha256))];
    const show = el('button', { type: 'button' }, 'Show the diff');
    show.addEventListener('click', () => {
      fromSelect.value = String(indexOf.get(c.oldSha256!));
      toSelect.value = String(indexOf.get(c.newSha256!));
      renderDiff();
    });
    changesBody.append(el('tr', { 'data-change': `${name(c.oldSha256)}>${name(c.newSha256)}` }, ...cells, el('td', {}, ...(comparable(c) ? [show] : []))));
  }
  if (current.changes.length === 0) changesBody.append(el('tr', {}, el('td', { colspan: '5', class: 'empty-note' }, 'The robots.txt did not change during the run.')));
  // The diff shown first is the latest change, from what was in force before to what came after;
  // without one, the two versions seen last, older first.
  const latest = [...current.changes].reverse().find(comparable);
  fromSelect.value = String(latest ? indexOf.get(latest.oldSha256!) : Math.max(0, current.versions.length - 2));
  toSelect.value = String(latest ? indexOf.get(latest.newSha256!) : Math.max(0, current.versions.length - 1));
  renderDiff();
  const blockedBody = byId('blocked').querySelector('tbody')!;
  blockedBody.replaceChildren();
  for (const b of current.blocked) {
    const rule = b.ruleLine !== null ? `line ${b.ruleLine}: ${b.rulePattern ?? ''}` : '–';
    const version = b.policySha256 ? versionOf.get(b.policySha256) ?? short(b.policySha256) : '–';
    blockedBody.append(el('tr', {}, el('td', { class: 'mono' }, b.url), el('td', {}, b.at), el('td', { class: 'mono' }, rule), el('td', {}, version), el('td', {}, b.reason)));
  }
  if (current.blocked.length === 0) blockedBody.append(el('tr', {}, el('td', { colspan: '5', class: 'empty-note' }, 'Nothing was blocked on this host.')));
  if (current.blockedOmitted) blockedBody.append(el('tr', {}, el('td', { colspan: '5', class: 'empty-note' }, `${current.blockedOmitted} more not listed.`)));
  const sentBody = byId('sent').querySelector('tbody')!;
  sentBody.replaceChildren();
  for (const s of current.sent) {
    const waited = s.intervalMs !== null ? `${s.intervalMs} ms${s.waitReason ? ` (${s.waitReason})` : ''}` : '–';
    const version = s.policySha256 ? versionOf.get(s.policySha256) ?? short(s.policySha256) : '–';
    sentBody.append(el('tr', { 'data-outcome': s.outcome }, el('td', { class: 'mono' }, s.url), el('td', {}, s.at), el('td', {}, s.error ? `${s.outcome}: ${s.error}` : s.outcome),
      el('td', { class: 'num' }, s.status === null ? '–' : String(s.status)), el('td', { class: 'num' }, s.bytes === null ? '–' : String(s.bytes)), el('td', {}, waited), el('td', {}, version)));
  }
  if (current.sent.length === 0) sentBody.append(el('tr', {}, el('td', { colspan: '7', class: 'empty-note' }, 'No request was sent to this host.')));
  if (current.sentOmitted) sentBody.append(el('tr', {}, el('td', { colspan: '7', class: 'empty-note' }, `${current.sentOmitted} more not listed.`)));
}

function renderDiff(): void {
  diffView.replaceChildren();
  boundary.replaceChildren();
  const versions = current?.versions ?? [];
  // With one version there is nothing to compare: a diff against nothing marked every line '+'.
  // Show the text once, and no pickers.
  diffPickers.hidden = versions.length < 2;
  boundary.classList.toggle('single', versions.length < 2);
  if (versions.length < 2) {
    const only = versions[0];
    boundary.textContent = only
      ? `One version of robots.txt governed every request to this host (#1, first seen ${only.fetchedAt}):`
      : 'No robots.txt text was recorded for this host, so there is nothing to show.';
    diffView.setAttribute('aria-label', 'The robots.txt text');
    if (only) appendText(only);
    return;
  }
  diffView.setAttribute('aria-label', 'Differences between the two versions');
  const a = versions[Number(fromSelect.value)]!;
  const b = versions[Number(toSelect.value)]!;
  const change = current!.changes.find((c) => c.oldSha256 === a.sha256 && c.newSha256 === b.sha256);
  boundary.append(
    change
      ? `Changed at ${change.at} (run ${change.runId}): requests that started after this were governed by #${Number(toSelect.value) + 1}.`
      : `#${Number(toSelect.value) + 1} was first seen at ${b.fetchedAt}` +
          (Date.parse(b.fetchedAt) > Date.parse(a.fetchedAt) ? '; requests after that were governed by it.' : '.'),
  );
  appendDiff(a, b);
}

/** One version's text with line numbers, no diff marks. */
function appendText(v: PolicyVersion): void {
  const lines = v.body.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) {
    diffView.append(el('div', { class: 'empty-note' }, 'The file is empty.'));
    return;
  }
  diffView.append(...lines.map((text, i) => el('div', { 'data-line': String(i + 1) }, el('span', { class: 'n' }, String(i + 1)), text)));
}

function appendDiff(a: PolicyVersion, b: PolicyVersion): void {
  const sign = { same: ' ', added: '+', removed: '-' } as const;
  const rows = diffPolicies(a.body, b.body).map((l) =>
    el('div', { class: l.kind, 'data-kind': l.kind }, el('span', { class: 'n' }, String(l.oldLine ?? '')), el('span', { class: 'n' }, String(l.newLine ?? '')), `${sign[l.kind]} ${l.text}`),
  );
  diffView.append(...rows);
}

fromSelect.addEventListener('change', renderDiff);
toSelect.addEventListener('change', renderDiff);
runSelect.addEventListener('change', () => void loadHosts().catch(fail));
let filterTimer: ReturnType<typeof setTimeout> | undefined;
hostFilter.addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void loadHosts().catch(fail), 200);
});

function fail(err: unknown): void {
  setStatus(`Could not load the audit: ${err instanceof Error ? err.message : String(err)}`, true);
}

loadIndex().catch(fail);
