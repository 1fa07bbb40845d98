// The last line a process wrote to its output file, for a one-line view of what it does.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openRegularFile } from './regular-file.js';
import { terminalLine } from './terminal-text.js';

// Only the end of the file is read: a chatty worker's megabytes are never loaded.
const TAIL_BYTES = 4096;

// The last non-empty line of a file, read from its tail, without control characters.
export function lastLine(file: string): string {
  let fd: number;
  try {
    fd = openRegularFile(file);
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.subarray(0, read).toString('utf8').split(/\r?\n|\r/);
    return lines.map((line) => terminalLine(line).trim()).reverse().find((line) => line !== '') ?? '';
  } finally {
    closeSync(fd);
  }
}
