// What the `team` command runs (src/cli.ts loads it, bundled as dist/cli/commands.cjs): routes
// `team <command>` to its spec's handler (specs/) and returns the exit code. Each command's module is
// imported only when that command runs, so that `team status` does not load the machine, execa or pino.
import { asksHelp } from './light/hand-over.js';
import { commandNamed, RUN_COMMAND } from './specs/index.js';

export { EXIT, TeamError } from '../sys/errors.js';

// Runs `team <command> …`; returns its exit code.
export async function dispatch(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `team`, `team --help`, `team help [command]`, `team <command> … --help`.
  if (command === undefined || command === 'help' || asksHelp(argv)) return (await import('./help.js')).helpCommand(argv);
  if (command === '--version') {
    process.stdout.write(`${(await import('../sys/version.js')).readVersion()}\n`);
    return 0;
  }
  // `team <command> …`, or `team [N:type] "task" [options]`: the run command has no name of its own.
  const spec = commandNamed(command);
  return spec ? spec.run!(rest) : RUN_COMMAND.run!(argv);
}
