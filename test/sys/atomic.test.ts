import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rewriteFile, stageFile, writeFileAtomic } from '../../src/sys/atomic.js';

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

describe('rewriteFile', () => {
  it('rewrites a note in place: the same file, the latest text, no temporary file', () => {
    const dir = makeDir();
    rewriteFile(dir, 'progress', 'a long first note\n');
    const inode = statSync(join(dir, 'progress')).ino;
    rewriteFile(dir, 'progress', 'second\n');
    expect(readFileSync(join(dir, 'progress'), 'utf8')).toBe('second\n');
    expect(statSync(join(dir, 'progress')).ino).toBe(inode);
    expect(readdirSync(dir)).toEqual(['progress']);
  });

  it('never writes through a link, a hard link or a FIFO under the name: each is replaced by a file of its own', () => {
    const dir = makeDir();
    const elsewhere = join(dir, 'elsewhere.txt');
    writeFileSync(elsewhere, 'the user\'s file\n');
    symlinkSync(elsewhere, join(dir, 'linked'));
    linkSync(elsewhere, join(dir, 'hard'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    for (const name of ['linked', 'hard', 'fifo']) {
      rewriteFile(dir, name, `${name} note\n`);
      expect(lstatSync(join(dir, name)).isFile(), name).toBe(true);
      expect(readFileSync(join(dir, name), 'utf8')).toBe(`${name} note\n`);
    }
    expect(readFileSync(elsewhere, 'utf8')).toBe('the user\'s file\n');
  });
});
