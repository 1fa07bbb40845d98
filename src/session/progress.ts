// Progress for a person on stderr and, with --json, one JSON object per line on stdout.
import { terminalText } from '../sys/terminal-text.js';

export interface ProgressEvent {
  type: string;
  [key: string]: unknown;
}

export interface Progress {
  emit(event: ProgressEvent, line?: string): void;
}

// Writes human lines to stderr (safe for a terminal), and JSON lines (exact) to stdout when asked.
// The lines of one turn of the event loop go out in one write each way (a run of 200 tasks says
// about 400 lines, most of them two or three at a time), before the next turn or the process's end.
export function makeProgress(options: { json: boolean; quiet?: boolean }): Progress {
  const out: string[] = [];
  const err: string[] = [];
  let due = false;
  let hooked = false;
  const flush = () => {
    due = false;
    if (out.length) process.stdout.write(out.splice(0).join(''));
    if (err.length) process.stderr.write(err.splice(0).join(''));
  };
  return {
    emit(event, line) {
      if (options.json) out.push(`${JSON.stringify({ ...event, at: new Date().toISOString() })}\n`);
      if (line && !options.quiet) err.push(`${terminalText(line)}\n`);
      if (due || (out.length === 0 && err.length === 0)) return;
      due = true;
      setImmediate(flush);
      // A process that ends before that turn (an exit, a thrown error) still says them.
      if (!hooked) {
        hooked = true;
        process.once('exit', flush);
      }
    },
  };
}
