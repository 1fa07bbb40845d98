// The run's pino log (log.jsonl in the run folder), written synchronously so a crash loses nothing.
import pino, { type Logger } from 'pino';

export type { Logger };

// A JSON-lines logger appending to `file`.
export function makeRunLogger(file: string): Logger {
  return pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: file, sync: true, append: true, mkdir: true }));
}
