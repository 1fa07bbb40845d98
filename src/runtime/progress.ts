// Progress for a person on stderr and, with --json, one JSON object per line on stdout.

export interface ProgressEvent {
  type: string;
  [key: string]: unknown;
}

export interface Progress {
  emit(event: ProgressEvent, line?: string): void;
}

// Writes human lines to stderr, and JSON lines to stdout when asked.
export function makeProgress(options: { json: boolean; quiet?: boolean }): Progress {
  return {
    emit(event, line) {
      if (options.json) process.stdout.write(`${JSON.stringify({ ...event, at: new Date().toISOString() })}\n`);
      if (line && !options.quiet) process.stderr.write(`${line}\n`);
    },
  };
}
