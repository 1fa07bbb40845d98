#!/usr/bin/env node
// The `team` command: the only file that calls process.exit.
import { TeamError, EXIT } from './errors.js';
import { dispatch } from './commands/dispatch.js';

async function main(): Promise<number> {
  try {
    return await dispatch(process.argv.slice(2));
  } catch (error) {
    if (error instanceof TeamError) {
      process.stderr.write(`team: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`team: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.failed;
  }
}

main().then((code) => {
  process.exitCode = code;
});
