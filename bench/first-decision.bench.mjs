// Time to first decision: what a broad crawl pays per origin. Parse a real robots.txt file and answer
// one check, robots-gate against robots-parser 3.0.1 (which compiles while it parses, so its figure is
// the whole of its cost), in one run, file by file interleaved, over the committed corpus sample
// (bench/corpus/robots) and, where present, the shared corpus it was drawn from. Reported per corpus
// and per size bin: MB/s of file parsed and decided (higher is better) and the ratio.
//
// Both libraries start from the same input, measured two ways: the octets a fetch gives (robots-gate
// decodes them itself; robots-parser takes a string, so its caller decodes them with TextDecoder,
// timed as its cost), and the text already decoded (as a gate parses its store's record). An earlier
// version timed robots-gate from the octets against robots-parser from the text, charging the
// decoding (2.5 ns an octet for a non-ASCII file, the most of a large HTML page's time) to one side.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import robotsParser from 'robots-parser';
import { parseRobotsTxt } from '../dist/parser/index.js';
import { SHARED_CORPUS } from './corpus/shared.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpora = [
  ['committed sample', path.join(here, 'corpus', 'robots')],
  ['shared corpus', SHARED_CORPUS],
];
const ROBOTS_URL = 'https://example.com/robots.txt';
const UA = 'Googlebot';
const URL_ = 'https://example.com/some/page.html?id=1';
const BINS = [[0, 1024, '< 1 KiB'], [1024, 10240, '1-10 KiB'], [10240, 102400, '10-100 KiB'], [102400, Infinity, '≥ 100 KiB']];

function load(dir) {
  if (!existsSync(dir)) return null;
  return readdirSync(dir).filter((f) => f.endsWith('.txt')).sort().map((name) => {
    const bytes = readFileSync(path.join(dir, name));
    return { name, bytes, text: new TextDecoder().decode(bytes) };
  });
}

// Each file, each library: the best of `rounds` fresh parse + first check (a file's first decision
// happens once per origin; the best of a few hides the machine's other jobs, for both alike).
// fromText: both are given the decoded text; else both start from the octets.
function measure(files, rounds, fromText) {
  const gate = new Float64Array(files.length);
  const peer = new Float64Array(files.length);
  gate.fill(Infinity);
  peer.fill(Infinity);
  const decoder = new TextDecoder();
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      let t = performance.now();
      if (parseRobotsTxt(fromText ? f.text : f.bytes, { maxBytes: Infinity }).isAllowed(URL_, UA)) sink++;
      gate[i] = Math.min(gate[i], performance.now() - t);
      t = performance.now();
      if (robotsParser(ROBOTS_URL, fromText ? f.text : decoder.decode(f.bytes)).isAllowed(URL_, UA)) sink++;
      peer[i] = Math.min(peer[i], performance.now() - t);
    }
  }
  if (sink < 0) console.log(sink);
  return { gate, peer };
}

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

const MODES = [[false, 'octets'], [true, 'text']];

export async function run() {
  const rows = [];
  const bins = [];
  for (const [label, dir] of corpora) {
    const files = load(dir);
    if (!files) continue;
    for (const [fromText, input] of MODES) {
      // Warm both libraries' code before timing.
      measure(files.slice(0, 200), 2, fromText);
      const { gate, peer } = measure(files, 3, fromText);
      const sum = (a, pick) => files.reduce((s, f, i) => s + (pick(f) ? a[i] : 0), 0);
      const bytes = (pick) => files.reduce((s, f) => s + (pick(f) ? f.bytes.length : 0), 0);
      const all = () => true;
      const g = bytes(all) / 1e6 / (sum(gate, all) / 1000);
      const p = bytes(all) / 1e6 / (sum(peer, all) / 1000);
      rows.push(`| ${label} | ${input} | ${files.length} | ${(bytes(all) / 1e6).toFixed(1)} | ${fmt(g)} | ${fmt(p)} | ${(g / p).toFixed(1)}× | ≥ 3× |`);
      for (const [lo, hi, name] of BINS) {
        const pick = (f) => f.bytes.length >= lo && f.bytes.length < hi;
        const n = files.filter(pick).length;
        if (n === 0) continue;
        const gb = bytes(pick) / 1e6 / (sum(gate, pick) / 1000);
        const pb = bytes(pick) / 1e6 / (sum(peer, pick) / 1000);
        bins.push(`| ${label}, ${name} | ${input} | ${n} | ${(bytes(pick) / 1e6).toFixed(2)} | ${fmt(gb)} | ${fmt(pb)} | ${(gb / pb).toFixed(1)}× | ≥ 3× |`);
      }
    }
  }
  console.log('| corpus | from | files | MB | robots-gate MB/s | robots-parser MB/s | ratio | target |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of rows) console.log(r);
  console.log('\nPer size bin:\n');
  console.log('| corpus, file size | from | files | MB | robots-gate MB/s | robots-parser MB/s | ratio | target |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const b of bins) console.log(b);
  console.log(`\nEach file: the best of 3 fresh parse + first check (\`isAllowed("${URL_}", "${UA}")\`), the libraries interleaved file by file; from octets, robots-parser's figure includes its caller's TextDecoder.decode().`);
}
