// Writes a file once and atomically: a temporary file in the same folder, then rename. Shared by
// the run store, the lock and the handoffs, so it lives below all of them.
import { close, closeSync, fsync, fsyncSync, open, openSync, rename, renameSync, write, writeSync, linkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { customAlphabet } from 'nanoid';

// Temporary files start with a dot and end in .tmp; readers report them as stray.
export const TEMP_PREFIX = '.tmp-';
// The random part of a temporary name, so that two writers never pick the same one.
const makeToken = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

// Writes `text` as `dir/name`; with `exclusive`, an existing file of that name is an error. With
// `syncDir: false` the folder fsync is left to the caller (group commit: one for several files).
export function writeFileAtomic(dir: string, name: string, text: string, options: { fsync: boolean; exclusive?: boolean; syncDir?: boolean }): string {
  const target = join(dir, name);
  const temp = join(dir, `${TEMP_PREFIX}${makeToken()}-${name}.tmp`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, text);
    if (options.fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
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

const openInPool = promisify(open);
const writeInPool = promisify(write);
const closeInPool = promisify(close);
const renameInPool = promisify(rename);
const fsyncInPool: (fd: number) => Promise<void> = promisify(fsync);

// Writes `text` for `dir/name` under a temporary name (synced when asked), all on libuv's thread
// pool: the event loop goes on meanwhile. Readers do not see the file until renameInPool.
export async function stageFile(dir: string, name: string, text: string, options: { fsync: boolean }): Promise<StagedFile> {
  const temp = join(dir, `${TEMP_PREFIX}${makeToken()}-${name}.tmp`);
  const fd = await openInPool(temp, 'wx', 0o644);
  try {
    await writeInPool(fd, text);
    if (options.fsync) await fsyncInPool(fd);
  } finally {
    await closeInPool(fd);
  }
  return { temp, target: join(dir, name) };
}

// Puts a staged file in place.
export function placeStaged(file: StagedFile): Promise<void> {
  return renameInPool(file.temp, file.target);
}

// syncDir on libuv's thread pool.
export async function syncDirInPool(dir: string): Promise<void> {
  const fd = await openInPool(dir, 'r');
  try {
    await fsyncInPool(fd);
  } finally {
    await closeInPool(fd);
  }
}
