// Reads a file an agent or a person could have replaced: only a regular file, never through a
// link, never with a read that can block (a FIFO), never more than a bound.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { leadInside } from './inside.js';

export type FileReading = { ok: true; text: string } | { ok: false; missing: boolean; reason: string };

// O_NOFOLLOW refuses a link as the last part of the path; O_NONBLOCK makes opening a FIFO return at once.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

// Opens `path` for reading only when it is a regular file, without following a link or blocking on
// a FIFO; throws (ELOOP, or a NOTREG error) otherwise. For readers of files a worker can replace.
export function openRegularFile(path: string): number {
  const fd = openSync(path, OPEN_FLAGS);
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw Object.assign(new Error(`${path} is not a regular file`), { code: 'NOTREG' });
}

// The text of `path` when it is a regular file of at most `maxBytes` bytes; otherwise why not.
// `singleLink` also refuses a hard link (a second name of a file elsewhere). With `within` (a
// folder: the project, the user's home), a link on the way is followed as long as it stays in that
// folder; without, a link as the last name is refused.
export function readRegularFile(path: string, maxBytes: number, options: { singleLink?: boolean; within?: string } = {}): FileReading {
  let real = path;
  if (options.within !== undefined) {
    let lead;
    try {
      lead = leadInside(options.within, path);
    } catch (error) {
      return openFailure(error as NodeJS.ErrnoException);
    }
    if (!lead.ok) return refused(lead.kind === 'outside' ? `a symbolic link out of ${options.within} (never followed)` : 'a symbolic link to nothing (never followed)');
    real = lead.real;
  }
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    return openFailure(error as NodeJS.ErrnoException);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return refused(`not a regular file (${kindOf(stat)})`);
    if (options.singleLink && stat.nlink > 1) return refused(`a hard link (${stat.nlink} names for one file)`);
    if (stat.size > maxBytes) return refused(`${stat.size} bytes, over the limit of ${maxBytes}`);
    return { ok: true, text: readAll(fd, stat.size, maxBytes) };
  } catch (error) {
    return refused(`unreadable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

// readRegularFile for the many small files of a log, in the fewest calls: an open that refuses a
// link and cannot block, one positioned read into a buffer kept for the purpose (a FIFO or socket
// refuses a positioned read), a close. An open that fails answers as readRegularFile's does (a
// missing file is not looked for twice); whatever else the read does not settle (a read that
// fails, an empty file, one that fills the buffer) is read again by readRegularFile, so that every
// refusal names its reason as that one does.
const SMALL_BYTES = 64 * 1024;
let small: Buffer | undefined;
export function readSmallFile(path: string, maxBytes: number): FileReading {
  small ??= Buffer.allocUnsafe(SMALL_BYTES + 1);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return openFailure(error as NodeJS.ErrnoException);
  }
  let length = -1;
  try {
    // At position 0: pread, which a FIFO answers with ESPIPE whether or not a writer holds it.
    length = readSync(fd, small, 0, small.length, 0);
  } catch {
    // Settled below, the careful way.
  } finally {
    closeSync(fd);
  }
  if (length <= 0 || length > maxBytes || length === small.length) return readRegularFile(path, maxBytes);
  return { ok: true, text: small.toString('utf8', 0, length) };
}

// Why an open with OPEN_FLAGS failed.
function openFailure(error: NodeJS.ErrnoException): FileReading {
  if (error.code === 'ENOENT') return { ok: false, missing: true, reason: 'no such file' };
  // ELOOP is what O_NOFOLLOW answers for a symbolic link; ENXIO a FIFO with no writer on some systems.
  if (error.code === 'ELOOP') return refused('a symbolic link (never followed)');
  return refused(`unreadable (${error.code ?? error.message})`);
}

function refused(reason: string): FileReading {
  return { ok: false, missing: false, reason };
}

// Reads the `size` bytes fstat gave (a file that grows meanwhile is read as it was), or what there
// is of a file that shrank; a file that claims no size is read to the end, up to the bound.
function readAll(fd: number, size: number, maxBytes: number): string {
  const buffer = Buffer.allocUnsafe(size > 0 ? size : Math.min(4096, maxBytes));
  let length = 0;
  while (length < buffer.length) {
    const read = readSync(fd, buffer, length, buffer.length - length, length);
    if (read === 0) break;
    length += read;
  }
  return buffer.toString('utf8', 0, length);
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a file';
}
