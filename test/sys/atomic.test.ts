import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/sys/atomic.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

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
});
