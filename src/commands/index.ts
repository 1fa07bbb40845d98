// What the `team` command runs (src/cli.ts loads it, bundled as dist/cli/commands.cjs): routes
// `team <command>` to its handler and returns the exit code. Each command's module is imported only
// when that command runs, so that `team status` does not load the machine, execa or pino.
import { asksHelp } from './light/hand-over.js';

export { EXIT, TeamError } from '../sys/errors.js';

// Runs `team <command> …`; returns its exit code.
export async function dispatch(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `team`, `team --help`, `team help [command]`, `team <command> … --help`.
  if (command === undefined || command === 'help' || asksHelp(argv)) return (await import('./help.js')).helpCommand(argv);
  switch (command) {
    case '--version':
      process.stdout.write(`${(await import('../sys/version.js')).readVersion()}\n`);
      return 0;
    case 'state':
      return (await import('./state.js')).runState(rest);
    case 'status':
      // `team status --watch` is the live view of `team watch`.
      if (rest.includes('--watch')) return (await import('./follow/watch.js')).watchCommand(rest.filter((a) => a !== '--watch'), 'team status --watch');
      return (await import('./follow/status.js')).runStatus(rest);
    case 'watch':
      return (await import('./follow/watch.js')).watchCommand(rest);
    case 'approve':
      return (await import('./approve.js')).recordApproval(rest, 'team approve');
    case 'resume':
      return (await import('./resume.js')).resumeCommand(rest);
    case 'cancel':
      return (await import('./cancel.js')).cancelCommand(rest);
    case 'scale':
      return (await import('./scale.js')).scaleCommand(rest);
    case 'attach':
      return (await import('./attach.js')).attachCommandLine(rest);
    case 'land':
      return (await import('./git/land.js')).landCommand(rest);
    case 'clean':
      return (await import('./git/clean.js')).cleanCommand(rest);
    case 'restore':
      return (await import('./git/restore.js')).restoreCommand(rest);
    case 'report':
      return (await import('./follow/report.js')).reportCommand(rest);
    case 'trace':
      return (await import('./follow/trace.js')).traceCommand(rest);
    case 'acp':
      return (await import('./acp.js')).acpCommand(rest);
    case 'checkpoint':
      return (await import('./git/checkpoint.js')).checkpointCommand(rest);
    case 'merge-driver':
      return (await import('./git/merge-driver.js')).mergeDriverCommand(rest);
    case 'wait':
      return (await import('./follow/wait.js')).waitCommand(rest);
    case 'list':
      return (await import('./follow/list.js')).listCommand(rest);
    case 'init':
      return (await import('./init.js')).initCommand(rest);
    case 'doctor':
      return (await import('./doctor.js')).doctorCommand(rest);
    case 'worker':
      return (await import('./worker.js')).workerCommand(rest);
    case 'say':
      return (await import('./say.js')).sayCommand(rest);
    case 'mcp':
      return (await import('./mcp.js')).mcpCommand(rest);
    case 'ralph':
      return (await import('./run.js')).runTeam(rest, 'ralph');
    default:
      // `team [N:type] "task" [options]`: the run command has no name of its own.
      return (await import('./run.js')).runTeam(argv, 'team');
  }
}
