// Routes `team <command>` to its handler; returns the exit code. Each command's module is imported
// only when that command runs, so that `team status` does not load the machine, execa or pino.

export const USAGE = `usage:
  team [N:agent-type] "task" [--config FILE] [--cwd DIR] [--tmux|--headless] [--agent NAME] [--max-fix-loops K] [--json] [--detach] [--store postgres://…]
  team [N:agent-type] --task WORD [run options]     (a bare one-word task is refused: it is more often a mistyped command)
  team ralph [N:agent-type] "task" [--max-iterations K] [run options]
  team status [--run ID] [--json] [--store postgres://…]   (--store or team.store: read the run from PostgreSQL)
  team watch [--run ID] [--interval MS] [--store postgres://…]   (also: team status --watch; q quits, the run goes on)
  team resume [--run ID] [--retry-interrupted] [--detach] [--store postgres://…]
  team cancel [--run ID] [--force] [--store postgres://…]
  team wait [--run ID] [--timeout S] [--json] [--store postgres://…]   (exit: the run's code; 5 at the timeout; 6 when nobody drives the run)
  team list [--json] [--store postgres://…]
  team init [--claude] [--opencode] [--gemini] [--codex] [--global] [--bin PATH] [--print] [--force] [--git-drivers]   (the /team, /ralph, /cancel, /team-status commands; the checkpoint merge driver)
  team attach [--run ID]
  team land [--run ID] [--store postgres://…]   (merge a completed run's branch team/<run> into your branch)
  team clean [--run ID]      (remove ended runs' worktrees and merged branches)
  team approve --stage S --artifact PATH --by NAME [--note TEXT] [--run ID] [--store postgres://…]
  team state <start-run|start-task|finish-task|retry|approve|status> ...
  team report [--run ID] [--out FILE] [--store postgres://…]   (one self-contained HTML page of the run)
  team worker --store postgres://… [--labels a,b] [--max N] [--lease-ttl S] [--cwd DIR]   (pull and run attempts on this machine)
  team checkpoint validate [FILE...] [--strict]   (the opchain rules; default .checkpoints/team.checkpoint.json)
  team doctor [--cwd DIR] [--config FILE] [--store postgres://…] [--json]   (what a run needs, and what to fix)
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
      // `team status --watch` is the live view of `team watch`.
      if (rest.includes('--watch')) return (await import('./watch.js')).watchCommand(rest.filter((a) => a !== '--watch'), 'team status --watch');
      return (await import('./status.js')).runStatus(rest);
    case 'watch':
      return (await import('./watch.js')).watchCommand(rest);
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
    case 'report':
      return (await import('./report.js')).reportCommand(rest);
    case 'checkpoint':
      return (await import('./checkpoint.js')).checkpointCommand(rest);
    case 'merge-driver':
      return (await import('./merge-driver.js')).mergeDriverCommand(rest);
    case 'wait':
      return (await import('./wait.js')).waitCommand(rest);
    case 'list':
      return (await import('./list.js')).listCommand(rest);
    case 'init':
      return (await import('./init.js')).initCommand(rest);
    case 'doctor':
      return (await import('./doctor.js')).doctorCommand(rest);
    case 'worker':
      return (await import('./worker.js')).workerCommand(rest);
    case 'ralph':
      return (await import('./run.js')).runTeam(rest, 'ralph');
    default:
      // `team [N:type] "task" [options]`: the run command has no name of its own.
      return (await import('./run.js')).runTeam(argv, 'team');
  }
}
