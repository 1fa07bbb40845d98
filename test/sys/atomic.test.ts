import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stageFile, writeFileAtomic } from '../../src/sys/atomic.js';

const dirs: string[] = [];
const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) execFileSync('umount', [dir]);
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

function makeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-atomic-'));
  dirs.push(dir);
  return dir;
}

describe('workers/atomic', () => {
  for (const fsync of [true, false]) {
    it(`writes the exact text and leaves no temporary file (fsync ${fsync})`, () => {
      const dir = makeDir();
      const target = writeFileAtomic(dir, 'a.json', '{"x":1}\n', { fsync });
      expect(target).toBe(join(dir, 'a.json'));
      expect(readFileSync(target, 'utf8')).toBe('{"x":1}\n');
      expect(readdirSync(dir)).toEqual(['a.json']);
    });
  }

  it('replaces an existing file when not exclusive', () => {
    const dir = makeDir();
    writeFileAtomic(dir, 'current', 'one\n', { fsync: true });
    writeFileAtomic(dir, 'current', 'two\n', { fsync: true });
    expect(readFileSync(join(dir, 'current'), 'utf8')).toBe('two\n');
    expect(readdirSync(dir)).toEqual(['current']);
  });

  it('refuses a second exclusive writer of the same name, keeping the first text', () => {
    const dir = makeDir();
    writeFileAtomic(dir, 'run.json', 'first\n', { fsync: true, exclusive: true });
    expect(() => writeFileAtomic(dir, 'run.json', 'second\n', { fsync: true, exclusive: true })).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(join(dir, 'run.json'), 'utf8')).toBe('first\n');
  });

  it('leaves no temporary file behind a refused exclusive write', () => {
    const dir = makeDir();
    writeFileAtomic(dir, 'run.json', 'first\n', { fsync: false, exclusive: true });
    expect(() => writeFileAtomic(dir, 'run.json', 'second\n', { fsync: false, exclusive: true })).toThrow();
    expect(readdirSync(dir)).toEqual(['run.json']);
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a write the disk cannot hold whole, leaving no file (a real 64 KB tmpfs)', async () => {
    const dir = makeDir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=65536', 'tmpfs', dir]);
    mounts.push(dir);
    // A disk that fills up gives a short write first: taken for the whole, it made a torn file.
    expect(() => writeFileAtomic(dir, 'big.json', 'x'.repeat(1024 * 1024), { fsync: true })).toThrow(/ENOSPC/);
    expect(readdirSync(dir)).toEqual([]);
    // The same for a file the log's group commit stages (an event file, before its rename).
    await expect(stageFile(dir, 'event.json', 'y'.repeat(1024 * 1024), { fsync: true })).rejects.toThrow(/ENOSPC/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
