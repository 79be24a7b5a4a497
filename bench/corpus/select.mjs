// Rebuilds this folder's sample of ../../../shared/corpus (run from the repo: node bench/corpus/select.mjs SRC_DIR).
// The three largest files (the ones with over 10,000 rules) are always kept; the rest is a seeded
// random sample of other files, up to 400 files and about 2 MB, so the whole sample stays under 8 MB.
import { copyFileSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const src = process.argv[2] ?? '/work/shared/corpus/robots';
const always = ['www.xuexi.cn.txt', 'docs.oracle.com.txt', 'docs.oracle.com--protego2019.txt'];
let seed = 20261130;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pool = readdirSync(src).filter((f) => f.endsWith('.txt') && !always.includes(f)).sort();
for (let i = pool.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [pool[i], pool[j]] = [pool[j], pool[i]];
}
const chosen = [...always];
let bytes = 0;
for (const f of pool) {
  if (chosen.length >= always.length + 400) break;
  const size = statSync(path.join(src, f)).size;
  if (size > 200_000 || bytes + size > 2_000_000) continue;
  chosen.push(f);
  bytes += size;
}
const out = path.join(here, 'robots');
mkdirSync(out, { recursive: true });
for (const f of chosen) copyFileSync(path.join(src, f), path.join(out, f));
const manifest = readFileSync(path.join(src, 'MANIFEST.tsv'), 'utf8').split('\n');
const keep = new Set(chosen);
writeFileSync(path.join(out, 'MANIFEST.tsv'), [manifest[0], ...manifest.slice(1).filter((row) => keep.has(row.split('\t')[0]))].join('\n') + '\n');
console.log(`${chosen.length} files`);
