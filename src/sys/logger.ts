// The run's pino log (log.jsonl in the run folder), written synchronously so a crash loses nothing,
// and never the cause of one: a line that cannot be written (a full disk, EIO) is lost, not thrown.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';

export type { Logger };

// A JSON-lines logger appending to `file`.
export function makeRunLogger(file: string): Logger {
  return pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, makeSyncDestination(file));
}

// Where pino's lines go: each written at once, in full. The first write that fails is said once on
// stderr and the log goes quiet; the run itself learns of a full disk from its event log, which
// stops it with the reason (event-log.ts), and that stop must not die writing its own log line.
function makeSyncDestination(file: string): { write(line: string): void } {
  mkdirSync(dirname(file), { recursive: true });
  let fd: number | undefined = openSync(file, 'a');
  return {
    write(line) {
      if (fd === undefined) return;
      try {
        writeAll(fd, Buffer.from(line));
      } catch (error) {
        closeQuietly(fd);
        fd = undefined;
        process.stderr.write(`team: the run's log ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); its lines are lost from here\n`);
      }
    },
  };
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closed is what was wanted.
  }
}
