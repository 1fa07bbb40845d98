// Writes a file a person or an agent could have replaced (a command file, the init manifest,
// `.gitattributes`, the opchain checkpoint): never through a link that leaves the folder it belongs
// in, never by opening what is there (a FIFO cannot block it), always as a temporary file renamed
// in the real folder. A folder or disk that refuses the write is bad input named by its path.
import { chmodSync, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { UsageError } from './errors.js';
import { leadInside } from './inside.js';
import { writeTempFile } from './atomic.js';

// The folder a write must stay in, and its name in messages ('the project', 'your home folder').
export interface WriteRoot {
  dir: string;
  name: string;
}

// The real path `path` is written at (through links that stay in the root), or a UsageError saying
// which link leads out of it or to nothing. Nothing is made or opened.
export function resolveWritable(root: WriteRoot, path: string): string {
  let lead;
  try {
    lead = leadInside(root.dir, path);
  } catch (error) {
    throw unwritable(path, error as NodeJS.ErrnoException);
  }
  if (lead.ok) return lead.real;
  if (lead.kind === 'dangling') throw new UsageError(`${lead.at} is a symbolic link to nothing; teamline does not make what it points to (remove the link)`);
  throw new UsageError(`${lead.at} leads outside ${root.name} through a symbolic link; teamline writes only inside ${root.name} (remove the link)`);
}

// Writes `text` as `path` in `root`: its folders made as needed, a temporary file in the real
// folder renamed over the real target (a file kept keeps its mode). Returns the real path.
export function writeFileInside(root: WriteRoot, path: string, text: string, options: { fsync?: boolean } = {}): string {
  const real = resolveWritable(root, path);
  let temp: string | undefined;
  try {
    makeFolders(dirname(real));
    temp = writeTempFile(dirname(real), basename(real), text, options.fsync === true);
    keepMode(real, temp);
    renameSync(temp, real);
  } catch (error) {
    if (temp !== undefined) removeQuietly(temp);
    throw unwritable(path, error as NodeJS.ErrnoException);
  }
  return real;
}

// Moves `from` to `to`, both in `root`, byte for byte (a rename in the real folders). Returns the real target.
export function moveFileInside(root: WriteRoot, from: string, to: string): string {
  const realFrom = resolveWritable(root, from);
  const realTo = resolveWritable(root, to);
  try {
    makeFolders(dirname(realTo));
    renameSync(realFrom, realTo);
  } catch (error) {
    throw unwritable(to, error as NodeJS.ErrnoException);
  }
  return realTo;
}

// Makes the folders of `dir` that are missing, one by one from the nearest that exists: a
// recursive mkdir says ENOENT where a read-only folder refuses it (EROFS), and spins under /proc.
function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

// A file that is replaced keeps its permissions (a regular file only: a FIFO's are not a file's).
function keepMode(real: string, temp: string): void {
  let mode: number;
  try {
    const stat = statSync(real);
    if (!stat.isFile()) return;
    mode = stat.mode & 0o7777;
  } catch {
    return;
  }
  chmodSync(temp, mode);
}

// Why a write failed, naming the path; errors a folder, a disk or a sandbox cause are bad input
// (exit 2), anything else is ours to show.
function unwritable(path: string, error: NodeJS.ErrnoException): Error {
  if (error instanceof UsageError) return error;
  if (error.code === undefined) return error;
  // Node's message is `CODE: what, syscall 'path'`: the path is said already.
  return new UsageError(`cannot write ${path} (${error.message.split(',')[0]})`);
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Never made, or gone already.
  }
}
