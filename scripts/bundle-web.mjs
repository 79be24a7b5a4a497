// Bundles the browser side of `robots-gate serve` into dist/web/assets/: the tester page, its
// worker (which carries src/parser: the very same parser the library uses) and the audit browser,
// plus the static HTML and CSS. Everything the pages need is local, so they work offline.
// Run by `npm run build` after tsc.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist/web/assets');
await mkdir(outdir, { recursive: true });

await build({
  absWorkingDir: root,
  entryPoints: {
    tester: 'src/web/page/tester.ts',
    'tester-worker': 'src/web/page/tester-worker.ts',
    audit: 'src/web/page/audit.ts',
  },
  outdir,
  bundle: true,
  format: 'esm',
  // platform 'browser' makes any Node built-in reaching the bundle a build error: the parser
  // layer promises to run in browsers.
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  charset: 'utf8',
  legalComments: 'eof',
  logLevel: 'warning',
});

for (const file of ['index.html', 'audit.html', 'style.css']) {
  await copyFile(path.join(root, 'src/web/static', file), path.join(outdir, file));
}
