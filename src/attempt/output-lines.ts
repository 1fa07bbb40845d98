// Reads the lines a worker added to its output file since the last read, for the watchdog.
import { closeSync, readSync } from 'node:fs';
import { openRegularFile } from '../sys/regular-file.js';

// At most this much new output is read per look; a flood is skipped, not buffered.
const MAX_READ_BYTES = 256 * 1024;

// Follows one output file by offset; a partial last line waits for its end.
export class OutputLines {
  private offset = 0;
  private partial = '';

  constructor(private readonly file: string) {}

  // The complete lines written since the last call ([] when none or the file is not there yet).
  readNew(): string[] {
    let fd: number;
    try {
      fd = openRegularFile(this.file);
    } catch {
      return [];
    }
    try {
      const buffer = Buffer.alloc(MAX_READ_BYTES);
      const read = readSync(fd, buffer, 0, MAX_READ_BYTES, this.offset);
      if (read === 0) return [];
      this.offset += read;
      const lines = (this.partial + buffer.subarray(0, read).toString('utf8')).split(/\r?\n/);
      this.partial = lines.pop() ?? '';
      return lines;
    } finally {
      closeSync(fd);
    }
  }
}
