// `team attach [--run ID]`: attaches the user's terminal to the run's own tmux server.
import { execa } from 'execa';
import { validateId } from '../log/guards.js';
import { resolveRun } from '../log/write.js';
import { UsageError } from '../sys/errors.js';
import { attachCommand, buildOverview } from '../../workers/tmux/index.js';
import { loadRunFold } from '../log/read-view.js';
import { optionalString, parseFlags } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// Runs tmux attach in this terminal; `--print` only prints the command.
export async function attachCommandLine(argv: string[]): Promise<number> {
  const cmd = 'team attach';
  const args = parseFlags(argv, FLAGS.attach, cmd);
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const { handles, status } = loadRunFold(paths);
  const pane = [...handles.values()].find((h) => h.backend === 'tmux');
  if (!pane || pane.backend !== 'tmux') throw new UsageError(`${cmd}: run ${paths.runId} has no tmux workers (start it with --tmux)`);
  const argvTmux = attachCommand(paths.runId, { socketDir: pane.socketDir });
  // The whole team at once: attaching lands on a window that tiles every worker's window.
  const shown = await buildOverview(paths.runId, { socketDir: pane.socketDir });
  if (shown.length) process.stderr.write(`overview window: ${shown.join(', ')} (each worker also has its own window: prefix + w lists them)\n`);
  if (args.values.print) {
    process.stdout.write(`${argvTmux.join(' ')}\n`);
    return 0;
  }
  if (status !== 'running') process.stderr.write(`run ${paths.runId} is ${status}; its panes exist only if it ran with --keep-panes\n`);
  const result = await execa(argvTmux[0]!, argvTmux.slice(1), { stdio: 'inherit', reject: false });
  return result.exitCode ?? 1;
}
