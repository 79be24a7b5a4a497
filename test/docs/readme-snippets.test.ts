// README's code is what a new user pastes first: every name it uses from robots-gate is imported
// and exported, and every other package it imports is said how to install (a dependency, by its
// major), or said to be an optional peer.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../cli/run-cli.js';

const README = fs.readFileSync('README.md', 'utf8');
const PKG = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string>; exports: Record<string, unknown> };
const blocks = [...README.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].map((m) => m[1]!);
const imports = (code: string) =>
  [...code.matchAll(/^import\s+(?:\{([^}]*)\}|(\w+))\s+from\s+'([^']+)'/gm)].map((m) => ({
    names: (m[1] ?? m[2] ?? '').split(',').map((n) => n.trim().split(/\s+as\s+/).pop()!).filter(Boolean),
    from: m[3]!,
  }));

let rootExports: string[];
beforeAll(async () => {
  assertBuilt();
  rootExports = Object.keys(await import(path.resolve('dist/index.js')));
});

describe('README code blocks', () => {
  it('has code blocks that import robots-gate', () => {
    expect(blocks.length).toBeGreaterThan(2);
    expect(blocks.some((b) => imports(b).some((i) => i.from === 'robots-gate'))).toBe(true);
  });

  it('imports every robots-gate name a block uses, and each one is exported', async () => {
    for (const code of blocks) {
      const imported = new Set(imports(code).flatMap((i) => i.names));
      // Code in comments counts too: a user uncomments it.
      for (const name of rootExports) {
        if (new RegExp(`(?:new\\s+|\\b)${name}\\s*\\(`).test(code)) expect(imported.has(name), `${name} used but not imported in:\n${code.slice(0, 200)}`).toBe(true);
      }
      for (const i of imports(code).filter((x) => x.from.startsWith('robots-gate'))) {
        const sub = i.from === 'robots-gate' ? '.' : `./${i.from.slice('robots-gate/'.length)}`;
        expect(PKG.exports[sub], i.from).toBeDefined();
        if (sub === '.') for (const n of i.names) expect(rootExports, n).toContain(n);
      }
    }
  });

  it('says how to install every other package a block imports', () => {
    for (const code of blocks) {
      for (const { from } of imports(code)) {
        if (from.startsWith('robots-gate') || from.startsWith('node:')) continue;
        const dep = PKG.dependencies[from];
        if (dep) {
          // A dependency of ours is no dependency of the user's: the README must say to install it,
          // with the major ours is (an interceptor composes only with the same major's dispatcher).
          const major = dep.replace(/^[^\d]*/, '').split('.')[0];
          expect(README, from).toMatch(new RegExp(`npm install [^\\n]*\\b${from}@${major}\\b`));
        } else expect(README, from).toMatch(new RegExp(`${from}\\s+is\\s+an\\s+optional\\s+peer\\s+dependency`));
      }
    }
  });
});
