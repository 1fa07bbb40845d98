// Reads a worker's output.log within a bound: a chatty CLI's megabytes never sit in the orchestrator;
// and what an ended attempt left in its folder, as the judge reads it wherever it ran.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { OUTPUT_FILE, readExitRecord, type ExitRecord } from '../../workers/wrapper.js';
import { readResultFile, type ResultFileText } from '../domain/result.js';
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

// The first `bytes` of an output file (where CLIs print their session record); '' when it is not there.
export function readOutputHead(file: string, bytes: number): string {
  let fd: number;
  try {
    fd = openRegularFile(file);
  } catch {
    return '';
  }
  try {
    return readRange(fd, 0, bytes).toString('utf8');
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

// The output of the attempt whose folder is `dir`, within `limit`.
export function readAttemptOutput(dir: string, limit = OUTPUT_READ_LIMIT): string {
  return readBoundedOutput(join(dir, OUTPUT_FILE), limit);
}

// What an ended attempt left: its result file's text, its wrapper's exit record, its output (within `limit`).
export interface AttemptLeft {
  result: ResultFileText;
  exitRecord: ExitRecord | null;
  output: string;
}

export async function attemptLeft(dir: string, limit = OUTPUT_READ_LIMIT): Promise<AttemptLeft> {
  return { result: readResultFile(join(dir, 'result.json')), exitRecord: (await readExitRecord(dir)) ?? null, output: readAttemptOutput(dir, limit) };
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
