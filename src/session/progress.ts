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
export function makeProgress(options: { json: boolean; quiet?: boolean }): Progress {
  return {
    emit(event, line) {
      if (options.json) process.stdout.write(`${JSON.stringify({ ...event, at: new Date().toISOString() })}\n`);
      if (line && !options.quiet) process.stderr.write(`${terminalText(line)}\n`);
    },
  };
}
