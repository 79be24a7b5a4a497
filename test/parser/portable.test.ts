// src/parser runs unchanged in browsers, Deno and workers: no Node built-in may be imported there.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../src/parser/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
const specifiers = (source: string): string[] =>
  [...source.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2] ?? m[3]!,
  );

describe('src/parser is portable', () => {
  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });
  it.each(files)('%s imports only relative modules, never node: or a bare Node module', (file) => {
    const source = readFileSync(new URL(file, dir), 'utf8');
    for (const spec of specifiers(source)) {
      expect(spec.startsWith('node:'), `${file} imports ${spec}`).toBe(false);
      expect(builtinModules.includes(spec), `${file} imports ${spec}`).toBe(false);
      expect(spec.startsWith('./') || spec.startsWith('../'), `${file} imports package ${spec}`).toBe(true);
    }
    expect(source).not.toMatch(/\b(?:process|Buffer|require)\s*[.(]/);
  });
});
