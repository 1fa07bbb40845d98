// Routes `team <command>` to its handler; returns the exit code. Each command's module is imported
// only when that command runs, so that `team status` does not load the machine, execa or pino.

export const USAGE = `usage:
  team [N:agent-type] "task" [--config FILE] [--cwd DIR] [--tmux|--headless] [--agent NAME] [--max-fix-loops K] [--json]
  team [N:agent-type] --task WORD [run options]     (a bare one-word task is refused: it is more often a mistyped command)
  team ralph [N:agent-type] "task" [--max-iterations K] [run options]
  team status [--run ID] [--json]
  team resume [--run ID] [--retry-interrupted]
  team cancel [--run ID] [--force]
  team attach [--run ID]
  team land [--run ID]       (merge a completed run's branch team/<run> into your branch)
  team clean [--run ID]      (remove ended runs' worktrees and merged branches)
  team approve --stage S --artifact PATH --by NAME [--note TEXT] [--run ID]
  team state <start-run|start-task|finish-task|retry|approve|status> ...
  team merge-driver BASE OURS THEIRS [PATH]   (git's merge driver for .checkpoints/*.checkpoint.json)
  team --version
`;

export async function dispatch(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    case '--version':
      process.stdout.write(`${(await import('./version.js')).readVersion()}\n`);
      return 0;
    case 'state':
      return (await import('./state.js')).runState(rest);
    case 'status':
      return (await import('./status.js')).runStatus(rest);
    case 'approve':
      return (await import('./approve.js')).recordApproval(rest, 'team approve');
    case 'resume':
      return (await import('./resume.js')).resumeCommand(rest);
    case 'cancel':
      return (await import('./cancel.js')).cancelCommand(rest);
    case 'attach':
      return (await import('./attach.js')).attachCommandLine(rest);
    case 'land':
      return (await import('./land.js')).landCommand(rest);
    case 'clean':
      return (await import('./clean.js')).cleanCommand(rest);
    case 'merge-driver':
      return (await import('./merge-driver.js')).mergeDriverCommand(rest);
    case 'ralph':
      return (await import('./run.js')).runTeam(rest, 'ralph');
    default:
      // `team [N:type] "task" [options]`: the run command has no name of its own.
      return (await import('./run.js')).runTeam(argv, 'team');
  }
}
