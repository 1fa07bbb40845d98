import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSync } from 'node:fs';
import { openRegularFile, readSmallFile, readRegularFile } from '../../src/sys/regular-file.js';

const dir = mkdtempSync(join(tmpdir(), 'teamline-regular-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A file of `text` in the test folder; returns its path.
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('workers/regular-file', () => {
  it('reads a regular file whole', () => {
    expect(readRegularFile(file('plain.json', '{"a":1}'), 100)).toEqual({ ok: true, text: '{"a":1}' });
  });

  it('says a missing file is missing', () => {
    expect(readRegularFile(join(dir, 'none.json'), 100)).toEqual({ ok: false, missing: true, reason: 'no such file' });
  });

  it('refuses a symbolic link without following it', () => {
    symlinkSync(file('target.json', '{}'), join(dir, 'link.json'));
    expect(readRegularFile(join(dir, 'link.json'), 100)).toEqual({ ok: false, missing: false, reason: 'a symbolic link (never followed)' });
  });

  it('refuses a FIFO at once, with no writer on the other end', () => {
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);
    expect(readRegularFile(join(dir, 'pipe.json'), 100)).toEqual({ ok: false, missing: false, reason: 'not a regular file (a FIFO)' });
  });

  it('refuses a folder', () => {
    mkdirSync(join(dir, 'folder.json'));
    expect(readRegularFile(join(dir, 'folder.json'), 100)).toEqual({ ok: false, missing: false, reason: 'not a regular file (a folder)' });
  });

  it('refuses a file over the bound, reading none of it', () => {
    expect(readRegularFile(file('big.json', 'x'.repeat(101)), 100)).toEqual({ ok: false, missing: false, reason: '101 bytes, over the limit of 100' });
  });

  it('opens a regular file for a reader of its own, and throws at once for a FIFO or a link', () => {
    closeSync(openRegularFile(file('opened.log', 'line\n')));
    execFileSync('mkfifo', [join(dir, 'opened-pipe.log')]);
    expect(() => openRegularFile(join(dir, 'opened-pipe.log'))).toThrow(/is not a regular file/);
    symlinkSync(join(dir, 'opened.log'), join(dir, 'opened-link.log'));
    expect(() => openRegularFile(join(dir, 'opened-link.log'))).toThrow(/ELOOP/);
  });

  it('refuses a hard link only when asked for a single name', () => {
    const original = file('original.json', '{}');
    linkSync(original, join(dir, 'second-name.json'));
    expect(readRegularFile(join(dir, 'second-name.json'), 100)).toEqual({ ok: true, text: '{}' });
    expect(readRegularFile(join(dir, 'second-name.json'), 100, { singleLink: true })).toEqual({ ok: false, missing: false, reason: 'a hard link (2 names for one file)' });
  });

  // The short read for the small files of a log: whatever it does not settle is read
  // again the careful way, so its answers are readRegularFile's.
  it('reads a listed file in one read, and answers as readRegularFile for all else', () => {
    expect(readSmallFile(file('listed.json', '{"b":2}'), 100)).toEqual({ ok: true, text: '{"b":2}' });
    expect(readSmallFile(file('listed-empty.json', ''), 100)).toEqual({ ok: true, text: '' });
    expect(readSmallFile(join(dir, 'listed-none.json'), 100)).toEqual({ ok: false, missing: true, reason: 'no such file' });
    expect(readSmallFile(file('listed-big.json', 'x'.repeat(101)), 100)).toEqual({ ok: false, missing: false, reason: '101 bytes, over the limit of 100' });
    const large = 'y'.repeat(200_000);
    expect(readSmallFile(file('listed-large.json', large), 1_000_000)).toEqual({ ok: true, text: large });
    expect(readSmallFile(file('listed-large-2.json', large), 150_000)).toEqual({ ok: false, missing: false, reason: '200000 bytes, over the limit of 150000' });
    symlinkSync(file('listed-target.json', '{}'), join(dir, 'listed-link.json'));
    expect(readSmallFile(join(dir, 'listed-link.json'), 100)).toEqual({ ok: false, missing: false, reason: 'a symbolic link (never followed)' });
    execFileSync('mkfifo', [join(dir, 'listed-pipe.json')]);
    expect(readSmallFile(join(dir, 'listed-pipe.json'), 100)).toEqual({ ok: false, missing: false, reason: 'not a regular file (a FIFO)' });
    mkdirSync(join(dir, 'listed-folder.json'));
    expect(readSmallFile(join(dir, 'listed-folder.json'), 100)).toEqual({ ok: false, missing: false, reason: 'not a regular file (a folder)' });
  });
});
