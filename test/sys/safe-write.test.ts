// The safe writer: a temporary file renamed in the real folder, through links that stay inside the
// root only, never opening what is there; a refused write is a usage error naming the path.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/sys/errors.js';
import { readRegularFile } from '../../src/sys/regular-file.js';
import { moveFileInside, writeFileInside } from '../../src/sys/safe-write.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-safe-write-'));
  made.push(dir);
  return dir;
}

describe('sys/safe-write', () => {
  it('makes the folders and the file, and leaves no temporary file', () => {
    const dir = folder();
    writeFileInside({ dir, name: 'the project' }, join(dir, 'a', 'b', 'c.txt'), 'text\n');
    expect(readFileSync(join(dir, 'a', 'b', 'c.txt'), 'utf8')).toBe('text\n');
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['c.txt']);
  });

  it('replaces a file keeping its mode, and a FIFO without opening it', () => {
    const dir = folder();
    writeFileSync(join(dir, 'run.sh'), 'old\n');
    chmodSync(join(dir, 'run.sh'), 0o750);
    writeFileInside({ dir, name: 'the project' }, join(dir, 'run.sh'), 'new\n');
    expect(statSync(join(dir, 'run.sh')).mode & 0o777).toBe(0o750);
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    writeFileInside({ dir, name: 'the project' }, join(dir, 'pipe'), 'a file now\n');
    expect(readFileSync(join(dir, 'pipe'), 'utf8')).toBe('a file now\n');
  });

  it('writes through a link that stays inside, at the file it leads to', () => {
    const dir = folder();
    writeFileSync(join(dir, 'real.md'), 'old\n');
    symlinkSync(join(dir, 'real.md'), join(dir, 'link.md'));
    writeFileInside({ dir, name: 'the project' }, join(dir, 'link.md'), 'new\n');
    expect(lstatSync(join(dir, 'link.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.md'), 'utf8')).toBe('new\n');
  });

  it('refuses a link out of the root (of a folder or of the file) and a link to nothing, writing nothing', () => {
    const [dir, outside] = [folder(), folder()];
    symlinkSync(outside, join(dir, 'out'));
    writeFileSync(join(outside, 'x.md'), 'theirs\n');
    symlinkSync(join(outside, 'x.md'), join(dir, 'x.md'));
    symlinkSync(join(dir, 'nowhere', 'y.md'), join(dir, 'y.md'));
    const root = { dir, name: 'your home folder' };
    expect(() => writeFileInside(root, join(dir, 'out', 'sub', 'a.md'), 'a')).toThrow(new UsageError(`${join(dir, 'out')} leads outside your home folder through a symbolic link; teamline writes only inside your home folder (remove the link)`));
    expect(() => writeFileInside(root, join(dir, 'x.md'), 'a')).toThrow(`${join(dir, 'x.md')} leads outside your home folder`);
    expect(() => writeFileInside(root, join(dir, 'y.md'), 'a')).toThrow(new UsageError(`${join(dir, 'y.md')} is a symbolic link to nothing; teamline does not make what it points to (remove the link)`));
    expect(readdirSync(outside)).toEqual(['x.md']);
    expect(readFileSync(join(outside, 'x.md'), 'utf8')).toBe('theirs\n');
    expect(readdirSync(dir).sort()).toEqual(['out', 'x.md', 'y.md']);
  });

  it('names the path of a write the file system refuses', () => {
    const dir = folder();
    mkdirSync(join(dir, 'taken.md'));
    expect(() => writeFileInside({ dir, name: 'the project' }, join(dir, 'taken.md'), 'a')).toThrow(new UsageError(`cannot write ${join(dir, 'taken.md')} (EISDIR: illegal operation on a directory)`));
  });

  it('moves a file by a rename, its bytes as they were', () => {
    const dir = folder();
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    writeFileSync(join(dir, 'old.json'), bytes);
    moveFileInside({ dir, name: 'the project' }, join(dir, 'old.json'), join(dir, 'history', 'old.json'));
    expect(readFileSync(join(dir, 'history', 'old.json')).equals(bytes)).toBe(true);
  });
});

describe('sys/regular-file within a folder', () => {
  it('follows a link that stays inside and refuses one that leads out', () => {
    const [dir, outside] = [folder(), folder()];
    writeFileSync(join(dir, 'real.json'), '{}');
    writeFileSync(join(outside, 'secret.json'), 'secret');
    symlinkSync(join(dir, 'real.json'), join(dir, 'in.json'));
    symlinkSync(join(outside, 'secret.json'), join(dir, 'out.json'));
    expect(readRegularFile(join(dir, 'in.json'), 100, { within: dir })).toEqual({ ok: true, text: '{}' });
    expect(readRegularFile(join(dir, 'out.json'), 100, { within: dir })).toEqual({ ok: false, missing: false, reason: `a symbolic link out of ${dir} (never followed)` });
    expect(readRegularFile(join(dir, 'none.json'), 100, { within: dir })).toEqual({ ok: false, missing: true, reason: 'no such file' });
  });
});
