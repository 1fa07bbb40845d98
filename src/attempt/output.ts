// Reads a worker's output.log within a bound: a chatty CLI's megabytes never sit in the orchestrator.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openRegularFile } from '../sys/regular-file.js';

// Output up to this size is read whole; longer output keeps its head and its tail.
export const OUTPUT_READ_LIMIT = 4 * 1024 * 1024;
// The head kept of longer output: where CLIs print their session record.
const HEAD_BYTES = 64 * 1024;

// The output as the adapters parse it: whole when small, else the head's whole lines, a marker line
// and the tail's whole lines (the tail holds the result record and the fenced result).
export function readBoundedOutput(file: string, limit = OUTPUT_READ_LIMIT): string {
  let fd: number;
  try {
    fd = openRegularFile(file);
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= limit) return readRange(fd, 0, size).toString('utf8');
    const headBytes = Math.min(HEAD_BYTES, Math.floor(limit / 4));
    const head = readRange(fd, 0, headBytes);
    const tail = readRange(fd, size - (limit - headBytes), limit - headBytes);
    const headLines = head.subarray(0, head.lastIndexOf(10) + 1);
    const tailLines = tail.subarray(tail.indexOf(10) + 1);
    const skipped = size - headLines.length - tailLines.length;
    return `${headLines.toString('utf8')}[teamline: ${skipped} bytes of output not read]\n${tailLines.toString('utf8')}`;
  } finally {
    closeSync(fd);
  }
}

function readRange(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return buffer.subarray(0, done);
}
