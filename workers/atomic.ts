// Writes a file once and atomically: a temporary file in the same folder, then rename. Shared by
// the run store, the lock and the handoffs, so it lives below all of them.
import { close, closeSync, fsync, fsyncSync, open, openSync, renameSync, write, writeSync, linkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
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

// Writes `text` for `dir/name` under a temporary name (synced when asked), all on libuv's thread
// pool: the event loop goes on meanwhile. Readers do not see the file until placeStaged. Callbacks,
// not promisified calls: this runs for every event, and each await would cost the event loop more.
export function stageFile(dir: string, name: string, text: string, options: { fsync: boolean }): Promise<StagedFile> {
  const temp = join(dir, `${TEMP_PREFIX}${makeToken()}-${name}.tmp`);
  return new Promise((resolve, reject) => {
    open(temp, 'wx', 0o644, (openError, fd) => {
      if (openError) return reject(openError);
      const finish = (error: Error | null) =>
        close(fd, (closeError) => {
          if (error ?? closeError) reject(error ?? closeError);
          else resolve({ temp, target: join(dir, name) });
        });
      write(fd, text, (writeError) => {
        if (writeError || !options.fsync) return finish(writeError);
        fsync(fd, finish);
      });
    });
  });
}

// Puts a staged file in place.
export function placeStaged(file: StagedFile): void {
  renameSync(file.temp, file.target);
}

// syncDir on libuv's thread pool.
export function syncDirInPool(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(dir, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      fsync(fd, (error) => close(fd, (closeError) => (error ?? closeError ? reject(error ?? closeError) : resolve())));
    });
  });
}
