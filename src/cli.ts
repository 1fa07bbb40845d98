#!/usr/bin/env node
// The `team` command: maps errors to exit codes; the only place that decides how the process ends.
import { asksHelp, WHOLE_CLI } from './commands/light/hand-over.js';
import { loadBundle } from './sys/code-cache.js';
import { terminalText } from './sys/terminal-text.js';

type Commands = typeof import('./commands/index.js') | typeof import('./commands/light/cancel.js') | typeof import('./commands/light/status.js');

const argv = process.argv.slice(2);
// Help, of any command, is the whole CLI's: the light starts of status and cancel stay light. No
// top-level await: the build bundles this file as the CommonJS script the package's bin names
// (dist/cli/team.cjs), which node starts without its ES module loader.
let commands: Commands;

// The commands for `team <command>`: every command is routed by commands/index.ts; `team cancel`
// and `team status` start with a light module of their own (commands/light/), unless `whole` asks
// for the whole CLI. Each comes from its bundle with V8's code cache (sys/code-cache.ts).
function loadCommands(command: string | undefined, whole: boolean): Promise<Commands> {
  const options = { command, usageSavesNone: true };
  if (!whole && command === 'cancel') return loadBundle<Commands>('cancel', () => import('./commands/light/cancel.js'), { ...options, light: true });
  if (!whole && command === 'status') return loadBundle<Commands>('status', () => import('./commands/light/status.js'), { ...options, light: true });
  return loadBundle<Commands>('commands', () => import('./commands/index.js'), options);
}

async function main(): Promise<number> {
  commands = await loadCommands(argv[0], asksHelp(argv));
  try {
    const code = await commands.dispatch(argv);
    if (code !== WHOLE_CLI) return code;
    // A light start (`team cancel` with no orchestrator to ask, `team status` of a store) hands the
    // command to the whole CLI.
    commands = await loadCommands(argv[0], true);
    return (await commands.dispatch(argv)) as number;
  } catch (error) {
    // A command's progress lines go out at the next turn of the event loop (session/progress.ts):
    // they come before its error.
    await new Promise((resolve) => setImmediate(resolve));
    // The error classes of the code that ran: each bundle has its own.
    if (error instanceof commands.TeamError) {
      process.stderr.write(`${terminalText(withProgramName(error.message))}\n`);
      return error.exitCode;
    }
    process.stderr.write(`team: internal error: ${terminalText((error as Error).stack ?? String(error))}\n`);
    return commands.EXIT.failed;
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
