// Parser bench: robots-gate/parser against robots-parser 3.0.1, in one run, on the committed sample of
// real robots.txt files (bench/corpus/robots, see bench/corpus/select.mjs) and one adversarial file.
// Both parsers get the whole file (robots-gate with maxBytes: Infinity: robots-parser has no cap).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import robotsParser from 'robots-parser';
import { parseRobotsTxt } from '../dist/parser/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpusDir = path.join(here, 'corpus', 'robots');
const ROBOTS_URL = 'https://example.com/robots.txt';
const UA = 'Googlebot';
const BIG_RULES = 10_000;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

function loadCorpus() {
  const files = readdirSync(corpusDir).filter((f) => f.endsWith('.txt')).sort();
  return files.map((name) => {
    const bytes = readFileSync(path.join(corpusDir, name));
    const text = new TextDecoder().decode(bytes);
    const ruleCount = (text.match(/^[ \t]*(dis)?allow[ \t]*:/gim) ?? []).length;
    return { name, bytes, text, ruleCount, urls: urlsFor(text) };
  });
}

// URLs a crawler might ask: paths taken from the file's own rules (wildcards filled in), their
// neighbours, and a few generic ones. Deterministic.
function urlsFor(text) {
  const out = ['/', '/index.html', '/search?q=robots', '/images/logo.png', '/a/b/c/d/e/f.html'];
  const re = /^[ \t]*(?:dis)?allow[ \t]*:[ \t]*(\S+)/gim;
  let m;
  let i = 0;
  while ((m = re.exec(text)) && out.length < 25) {
    if (i++ % 7 !== 0) continue;
    let p = m[1].replace(/\*/g, 'x').replace(/\$$/, '');
    if (!p.startsWith('/')) p = '/' + p;
    out.push(p, p + 'more/page.html');
  }
  return out.map((p) => 'https://example.com' + p);
}

function timeLoop(fn, minMs) {
  let iterations = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    fn();
    iterations++;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return { iterations, ms: elapsed };
}

const fmt = (n, d = 1) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(d));

function parseThroughput(corpus) {
  const totalBytes = corpus.reduce((s, f) => s + f.bytes.length, 0);
  const runs = {
    'robots-gate (bytes)': () => { for (const f of corpus) parseRobotsTxt(f.bytes, { maxBytes: Infinity }); },
    'robots-gate (string)': () => { for (const f of corpus) parseRobotsTxt(f.text, { maxBytes: Infinity }); },
    'robots-parser (string)': () => { for (const f of corpus) robotsParser(ROBOTS_URL, f.text); },
  };
  const result = {};
  for (const [name, fn] of Object.entries(runs)) {
    fn(); // warm-up
    const { iterations, ms } = timeLoop(fn, 3000);
    result[name] = (totalBytes * iterations) / 1e6 / (ms / 1000);
  }
  return { totalBytes, result };
}

// Every file's URLs are checked equally often (a crawler's mix of sites), interleaving the two
// libraries file by file so load on the machine hits both alike. Reported: total checks / total time,
// and the median of the per-file ratios.
function checkThroughput(files, gateRounds, peerRounds) {
  const parsed = files.map((f) => ({ urls: f.urls, gate: parseRobotsTxt(f.text, { maxBytes: Infinity }), peer: robotsParser(ROBOTS_URL, f.text) }));
  let disagreements = 0;
  let sink = 0;
  for (const { urls, gate, peer } of parsed) {
    for (let k = 0; k < 3; k++) for (const u of urls) { if (gate.isAllowed(u, UA)) sink++; if (peer.isAllowed(u, UA)) sink++; }
    for (const u of urls) if (gate.isAllowed(u, UA) !== peer.isAllowed(u, UA)) disagreements++;
  }
  let gateMs = 0, peerMs = 0, checks = 0;
  const ratios = [];
  for (const { urls, gate, peer } of parsed) {
    let t = performance.now();
    for (let k = 0; k < gateRounds; k++) for (let i = 0; i < urls.length; i++) if (gate.isAllowed(urls[i], UA)) sink++;
    const g = (performance.now() - t) / gateRounds;
    t = performance.now();
    for (let k = 0; k < peerRounds; k++) for (let i = 0; i < urls.length; i++) if (peer.isAllowed(urls[i], UA)) sink++;
    const p = (performance.now() - t) / peerRounds;
    gateMs += g; peerMs += p; checks += urls.length;
    ratios.push(p / g);
  }
  if (sink < 0) console.log(sink);
  ratios.sort((a, b) => a - b);
  return { gate: checks / (gateMs / 1000), peer: checks / (peerMs / 1000), median: ratios[ratios.length >> 1], disagreements, checked: checks };
}

function heapPerFile(corpus, make) {
  const totalBytes = corpus.reduce((s, f) => s + f.bytes.length, 0);
  // heapUsed + external: robots-gate keeps rules in typed arrays, whose memory is outside the JS heap.
  const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.external; };
  gc(); gc();
  const before = used();
  const kept = corpus.map((f) => make(f));
  gc(); gc();
  const after = used();
  if (kept.length !== corpus.length) throw new Error('unreachable');
  return (after - before) / totalBytes;
}

// The first check compiles the group's rules (15,000 identical lines merged into one); it is timed on
// 7 fresh parses and the median reported, since one sample on a shared machine is mostly noise.
function adversarial() {
  const line = 'Disallow: /*a*a*a*a*a*a*a*a*a*a*b\n';
  const body = 'User-agent: *\n' + line.repeat(Math.floor((500 * 1024 - 14) / line.length));
  const url = 'https://example.com/' + 'a'.repeat(2000);
  const firsts = [];
  let gate;
  let firstAllowed;
  for (let i = 0; i < 7; i++) {
    gate = parseRobotsTxt(body);
    const t = performance.now();
    firstAllowed = gate.isAllowed(url, UA);
    firsts.push(performance.now() - t);
  }
  firsts.sort((a, b) => a - b);
  const { iterations, ms } = timeLoop(() => gate.isAllowed(url, UA), 200);
  const peer = robotsParser(ROBOTS_URL, body);
  const t = performance.now();
  const peerAllowed = peer.isAllowed(url, UA);
  const peerMs = performance.now() - t;
  return { bytes: body.length, gateFirst: firsts[3], gateRepeat: ms / iterations, peerMs, firstAllowed, peerAllowed };
}

// Real crawler headers (issue 11): who each parser thinks the crawler is, and what reading the
// token from a full browser-style header costs per check (robots-gate caches the reading per string).
const HEADERS = {
  GPTBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)',
  ClaudeBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  Googlebot: 'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  MJ12bot: 'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)',
};
function realHeaders() {
  const body = Object.keys(HEADERS).map((n) => `User-agent: ${n}\nDisallow: /\n`).join('\n') + '\nUser-agent: *\nAllow: /\n';
  const gate = parseRobotsTxt(body);
  const peer = robotsParser(ROBOTS_URL, body);
  const url = 'https://example.com/articles/1';
  const verdicts = Object.entries(HEADERS).map(([name, ua]) => ({ name, gate: gate.isAllowed(url, ua), peer: peer.isAllowed(url, ua) !== false }));
  const rate = (fn) => {
    const { iterations, ms } = timeLoop(() => { for (let i = 0; i < 1000; i++) fn(); }, 300);
    return (iterations * 1000) / (ms / 1000);
  };
  let sink = 0;
  const fullFn = () => { sink += gate.isAllowed(url, HEADERS.GPTBot) ? 1 : 0; };
  const bareFn = () => { sink += gate.isAllowed(url, 'GPTBot') ? 1 : 0; };
  // Warm both up first: the one measured first would otherwise pay for the JIT.
  rate(fullFn);
  rate(bareFn);
  const full = rate(fullFn);
  const bare = rate(bareFn);
  const peerFull = rate(() => { sink += peer.isAllowed(url, HEADERS.GPTBot) ? 1 : 0; });
  if (sink < 0) console.log(sink);
  return { verdicts, full, bare, peerFull };
}

export async function run() {
  const corpus = loadCorpus();
  const big = corpus.filter((f) => f.ruleCount > BIG_RULES);
  const totalMB = corpus.reduce((s, f) => s + f.bytes.length, 0) / 1e6;
  console.log(`Corpus: ${corpus.length} real robots.txt files, ${totalMB.toFixed(2)} MB (bench/corpus/robots); ${big.length} with over ${BIG_RULES.toLocaleString('en-US')} rules: ${big.map((f) => `${f.name} (${f.ruleCount.toLocaleString('en-US')})`).join(', ')}.\n`);

  const parse = parseThroughput(corpus);
  const rp = parse.result['robots-parser (string)'];
  const all = checkThroughput(corpus, 200, 10);
  const bigChecks = checkThroughput(big, 2000, 10);
  const heapGate = heapPerFile(corpus, (f) => parseRobotsTxt(f.bytes, { maxBytes: Infinity }));
  const heapGateUsed = heapPerFile(corpus, (f) => { const r = parseRobotsTxt(f.bytes, { maxBytes: Infinity }); r.isAllowed(f.urls[0], UA); return r; });
  const heapPeer = heapPerFile(corpus, (f) => robotsParser(ROBOTS_URL, f.text));
  const heapBig = big.map((f) => ({ name: f.name, ratio: heapPerFile([f], (g) => { const r = parseRobotsTxt(g.bytes, { maxBytes: Infinity }); r.isAllowed(g.urls[0], UA); return r; }) }));
  const adv = adversarial();

  const rows = [
    ['parse throughput, MB/s (bytes in)', fmt(parse.result['robots-gate (bytes)']), fmt(rp), `${(parse.result['robots-gate (bytes)'] / rp).toFixed(1)}×`, '≥ 3×'],
    ['parse throughput, MB/s (string in)', fmt(parse.result['robots-gate (string)']), fmt(rp), `${(parse.result['robots-gate (string)'] / rp).toFixed(1)}×`, '≥ 3×'],
    ['checks/s, parsed file, whole corpus (each file equally often)', fmt(all.gate), fmt(all.peer), `${(all.gate / all.peer).toFixed(1)}×`, '≥ 5×'],
    ['checks/s, median of the per-file ratios', '', '', `${all.median.toFixed(1)}×`, '≥ 5×'],
    [`checks/s, files with > ${BIG_RULES.toLocaleString('en-US')} rules`, fmt(bigChecks.gate), fmt(bigChecks.peer), `${(bigChecks.gate / bigChecks.peer).toFixed(0)}×`, '≥ 20×'],
    ['heap per parsed file / file size', `${heapGate.toFixed(2)}× (${heapGateUsed.toFixed(2)}× after a check)`, `${heapPeer.toFixed(2)}×`, `${(heapPeer / heapGate).toFixed(1)}× less`, '≤ 3× size'],
    ...heapBig.map((h) => [`heap / size after a check: ${h.name}`, `${h.ratio.toFixed(2)}×`, '', '', '≤ 3× size']),
    [`adversarial: ${(adv.bytes / 1024).toFixed(0)} KiB of \`Disallow: /*a*a*a*a*a*a*a*a*a*a*b\`, 2,000-char path`, `${adv.gateFirst.toFixed(2)} ms first check (compiles; median of 7), ${(adv.gateRepeat * 1000).toFixed(1)} µs each after`, `${fmt(adv.peerMs)} ms`, `${(adv.peerMs / adv.gateFirst).toFixed(0)}×`, '< 10 ms'],
  ];
  console.log('| measure | robots-gate | robots-parser 3.0.1 | ratio | target |');
  console.log('| --- | ---: | ---: | ---: | --- |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(`\nAnswers differ from robots-parser on ${all.disagreements} of ${all.checked} corpus URLs (see bench/README.md).`);
  console.log(`Adversarial answers: robots-gate ${adv.firstAllowed ? 'allowed' : 'disallowed'}, robots-parser ${adv.peerAllowed ? 'allowed' : 'disallowed'}.`);
  console.log(`Node ${process.version}; checks use absolute URL strings and the User-Agent "${UA}".`);

  const real = realHeaders();
  console.log('\nReal crawler headers against a file disallowing each by name (`User-agent: GPTBot / Disallow: /`, `*` allowed):\n');
  console.log('| header | robots-gate | robots-parser 3.0.1 |');
  console.log('| --- | --- | --- |');
  for (const v of real.verdicts) console.log(`| ${v.name}'s real header | ${v.gate ? 'allowed' : 'disallowed'} | ${v.peer ? 'allowed' : 'disallowed'} |`);
  console.log(`| checks/s, GPTBot's full header | ${fmt(real.full)} | ${fmt(real.peerFull)} (${(real.full / real.peerFull).toFixed(1)}×) |`);
  console.log(`| checks/s, bare token "GPTBot" | ${fmt(real.bare)} (full header / bare: ${(real.full / real.bare).toFixed(2)}) | |`);
}
