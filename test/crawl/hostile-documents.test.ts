// Documents whose safe paths collide: no saved file may ever be replaced by other content, or an
// audit row's saved path and sha256 would stop describing what is on disk.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentPath } from '../../src/crawl/document-path.js';
import { OutputWriteError, saveDocument } from '../../src/crawl/document-store.js';
import { canMountTmpfs } from '../helpers/tmpfs.js';

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-docs-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));
const onDisk = (rel: string) => createHash('sha256').update(fs.readFileSync(path.join(out, rel))).digest('hex');

describe('saving documents whose paths collide', () => {
  it.each([
    ['http://c.test/', 'http://c.test/index.html'],
    ['http://c.test/a%2Fb', 'http://c.test/a_b'],
    ['http://c.test/%2e%2e', 'http://c.test/_..'],
    ['http://c.test/x:y', 'http://c.test/x_y'],
  ])('%s and %s both keep their content', async (first, second) => {
    const a = await saveDocument(out, first, Buffer.from(`first ${first}`));
    const b = await saveDocument(out, second, Buffer.from(`second ${second}`));
    expect(b.savedPath).not.toBe(a.savedPath);
    expect(onDisk(a.savedPath)).toBe(a.sha256);
    expect(onDisk(b.savedPath)).toBe(b.sha256);
  });

  it('a URL saved again with the same bytes keeps its path; with new bytes the old file stays as recorded', async () => {
    const url = 'http://d.test/page';
    const v1 = await saveDocument(out, url, Buffer.from('v1'));
    const again = await saveDocument(out, url, Buffer.from('v1'));
    expect(again.savedPath).toBe(v1.savedPath);
    const v2 = await saveDocument(out, url, Buffer.from('v2'));
    const v3 = await saveDocument(out, url, Buffer.from('v3'));
    expect(new Set([v1.savedPath, v2.savedPath, v3.savedPath]).size).toBe(3);
    for (const s of [v1, v2, v3]) expect(onDisk(s.savedPath)).toBe(s.sha256);
    // v2 once more: found where it already is.
    expect((await saveDocument(out, url, Buffer.from('v2'))).savedPath).toBe(v2.savedPath);
  });
});

describe('a document write that fails', () => {
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));

  it.skipIf(!canMountTmpfs)('on a full disk leaves no file behind, and the document later takes its own path', async () => {
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    try {
      const url = 'http://full.test/big';
      const body = Buffer.alloc(300_000, 'x');
      const err = await saveDocument(disk, url, body).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutputWriteError);
      expect((err as Error).message).toMatch(/disk is full/);
      // Neither a partial file at the natural path nor the temporary one.
      expect(files(disk)).toEqual([]);
      execFileSync('mount', ['-o', 'remount,size=1m', disk]);
      const saved = await saveDocument(disk, url, body);
      expect(saved.savedPath).toBe(documentPath(url));
      expect(files(disk)).toEqual([path.join(disk, saved.savedPath)]);
    } finally {
      execFileSync('umount', ['-l', disk]);
      fs.rmSync(disk, { recursive: true, force: true });
    }
  });
});
