// `.team/runs/current`: the id of the latest run, read as a file anyone could have replaced (a
// link, a folder, a FIFO, a megabyte of garbage) and blamed by its own name when it is wrong.
import { join } from 'node:path';
import { UsageError } from '../sys/errors.js';
import { readRegularFile } from '../sys/regular-file.js';
import { quoteShort } from '../sys/terminal-text.js';
import { ID_PATTERN } from './guards.js';

// A run id and its newline, with room to spare; a bigger file is not one teamline wrote.
const MAX_CURRENT_BYTES = 1024;

// The file's path, for messages and readers.
export function currentFile(runsDir: string): string {
  return join(runsDir, 'current');
}

// The latest run id, or undefined when there is no `current` (or an empty one); a `current` that
// is not a small regular file holding a run id is a usage error naming it.
export function readCurrentId(runsDir: string): string | undefined {
  const file = currentFile(runsDir);
  const reading = readRegularFile(file, MAX_CURRENT_BYTES);
  if (!reading.ok) {
    if (reading.missing) return undefined;
    throw new UsageError(`${file}: ${reading.reason}; it should hold the id of the latest run (remove it, and \`team list\` names the runs)`);
  }
  const id = reading.text.trim();
  if (id === '') return undefined;
  if (!ID_PATTERN.test(id)) throw new UsageError(`${file}: ${quoteShort(id)} is not a run id; it should hold the id of the latest run (remove it, and \`team list\` names the runs)`);
  return id;
}
