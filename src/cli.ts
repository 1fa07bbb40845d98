#!/usr/bin/env node
// The `team` command: maps errors to exit codes; the only place that decides how the process ends.
import { loadCommands } from './launch.js';

const { dispatch, EXIT, TeamError } = await loadCommands(process.argv[2]);

async function main(): Promise<number> {
  try {
    return await dispatch(process.argv.slice(2));
  } catch (error) {
    if (error instanceof TeamError) {
      process.stderr.write(`${withProgramName(error.message)}\n`);
      return error.exitCode;
    }
    process.stderr.write(`team: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.failed;
  }
}

// A message that already names its command (`team state retry: …`) is not prefixed a second time.
function withProgramName(message: string): string {
  return /^team[ :]/.test(message) ? message : `team: ${message}`;
}

// A reader that went away (`team status | head -1`) ends only what it would have read: the rest of
// stdout is dropped and the command still finishes its work (a run keeps running).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});

main().then((code) => {
  process.exitCode = code;
});
