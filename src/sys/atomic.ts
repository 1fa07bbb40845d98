// Writes a file once and atomically: a temporary file in the same folder, then rename. Shared by
// the run store, the lock and the handoffs, so it lives below all of them.
import { closeSync, constants, fstatSync, fsync, fsyncSync, ftruncateSync, openSync, renameSync, writeSync, linkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { customAlphabet } from 'nanoid';
import { DiskFullError, isDiskFull } from './errors.js';

// Temporary files start with a dot and end in .tmp; readers report them as stray.
export const TEMP_PREFIX = '.tmp-';
// The random part of a temporary name, so that two writers never pick the same one.
const makeToken = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

// Writes `text` as `dir/name`; with `exclusive`, an existing file of that name is an error. With
// `syncDir: false` the folder fsync is left to the caller (group commit: one for several files).
export function writeFileAtomic(dir: string, name: string, text: string, options: { fsync: boolean; exclusive?: boolean; syncDir?: boolean }): string {
  const target = join(dir, name);
  const temp = writeTempFile(dir, name, text, options.fsync);
  if (options.exclusive) {
    // link() fails when the target exists, unlike rename(): the first writer wins.
    try {
      linkSync(temp, target);
    } finally {
      unlinkSync(temp);
    }
  } else {
    renameSync(temp, target);
  }
  if (options.fsync && options.syncDir !== false) syncDir(dir);
  return target;
}

// No link followed, no FIFO waited on (it fails at once with no reader): rewriteFile's open.
const REWRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

// Replaces the text of `dir/name` in place, without a new file: for a note whose readers want only
// its time and its latest text (an attempt's progress), rewritten at every call of an agent. A new
// file per write costs an inode, the dearest part of a write on a disk whose free inodes are
// scattered. A reader may find it empty for an instant. A link, a FIFO, a file with a second name
// (a hard link to a file elsewhere) or anything but a regular file under that name is never
// written through: it is replaced as writeFileAtomic replaces it.
export function rewriteFile(dir: string, name: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(join(dir, name), REWRITE_FLAGS, 0o644);
  } catch {
    writeFileAtomic(dir, name, text, { fsync: false });
    return;
  }
  let written = false;
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.nlink === 1) {
      ftruncateSync(fd, 0);
      writeWhole(fd, text);
      written = true;
    }
  } finally {
    closeSync(fd);
  }
  if (!written) writeFileAtomic(dir, name, text, { fsync: false });
}

// Writes `text` to a new temporary file for `name` in `dir` (synced when `fsync`) and returns its
// path; renaming it into place is the caller's. A write that fails leaves no temporary file.
export function writeTempFile(dir: string, name: string, text: string, fsync: boolean): string {
  const temp = join(dir, `${TEMP_PREFIX}${makeToken()}-${name}.tmp`);
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o644);
  } catch (error) {
    throw isDiskFull(error) ? new DiskFullError(join(dir, name), error.code!) : error;
  }
  try {
    writeWhole(fd, text);
    if (fsync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    // A full disk names the file it could not write, never a bare "ENOSPC: …, write".
    throw isDiskFull(error) ? new DiskFullError(join(dir, name), error.code!) : error;
  }
  closeSync(fd);
  return temp;
}

// Writes all of `text` at the file's position. A disk that fills up gives a short write first,
// which a single write would take for the whole; the rest then fails (ENOSPC).
function writeWhole(fd: number, text: string): void {
  const length = Buffer.byteLength(text);
  const done = writeSync(fd, text);
  if (done === length) return;
  const bytes = Buffer.from(text);
  for (let at = done; at < length; ) at += writeSync(fd, bytes, at, length - at);
}

// Makes a rename or link in `dir` durable.
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

// The names of a file written under its temporary name, to be renamed into place.
export interface StagedFile {
  temp: string;
  target: string;
}

// Writes `text` for `dir/name` under a temporary name (synced when asked). Readers do not see the
// file until placeStaged. The file is created and written on the event loop (a small write to the
// page cache), and only its fsync goes to libuv's thread pool: each call handed to the pool wakes a
// thread of it and then the event loop, and on two cores the one woken takes the core of the one
// waking it, so the four calls of a file each on the pool cost more than the three done here.
// Callbacks, not promisified calls: this runs for every event, and each await would cost more.
export function stageFile(dir: string, name: string, text: string, options: { fsync: boolean }): Promise<StagedFile> {
  const temp = `${dir}/${TEMP_PREFIX}${makeToken()}-${name}.tmp`;
  const staged = { temp, target: `${dir}/${name}` };
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o644);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  try {
    writeWhole(fd, text);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    return Promise.reject(error as Error);
  }
  if (!options.fsync) {
    closeSync(fd);
    return Promise.resolve(staged);
  }
  return fsyncAndClose(fd, staged);
}

// fsync on libuv's thread pool, then close (quick, on the event loop); resolves with `value`, or
// rejects with the first error.
function fsyncAndClose<T>(fd: number, value: T): Promise<T> {
  return new Promise((resolve, reject) => {
    fsync(fd, (error) => {
      try {
        closeSync(fd);
      } catch (closeError) {
        error ??= closeError as NodeJS.ErrnoException;
      }
      if (error) reject(error);
      else resolve(value);
    });
  });
}

// Puts a staged file in place.
export function placeStaged(file: StagedFile): void {
  renameSync(file.temp, file.target);
}

// syncDir with its fsync on libuv's thread pool (opening and closing a folder is quick).
export function syncDirInPool(dir: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return fsyncAndClose(fd, undefined);
}
