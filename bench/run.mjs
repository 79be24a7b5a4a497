// `npm run bench`: runs every bench/*.bench.mjs in a fixed order, in this one process run, so
// robots-gate and its peers are measured side by side on the same machine at the same time.
// Each bench module exports `async function run()` and prints its own table with ratios.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const order = ['parser', 'first-decision', 'origins', 'gate', 'politeness', 'schedule', 'broad', 'throughput', 'crawl', 'fleet', 'browser', 'crawlee', 'devtools', 'sitemap'];
const only = process.argv.slice(2);
for (const name of order) {
  if (only.length && !only.includes(name)) continue;
  const file = path.join(here, `${name}.bench.mjs`);
  if (!existsSync(file)) continue;
  console.log(`\n## ${name}\n`);
  const mod = await import(file);
  await mod.run();
}
