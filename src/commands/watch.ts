// `team watch [--run ID]` (and `team status --watch`): the live view of a run, until it ends or q.
import { resolveRun } from '../checkpoint/store.js';
import { validateId } from '../checkpoint/guards.js';
import { watchRun } from '../watch/live.js';
import { optionalInt, optionalString, parseFlags } from './args.js';
import { openProject, PROJECT_FLAGS } from './project.js';

// How often the view reads the log, unless --interval says otherwise.
const DEFAULT_INTERVAL_MS = 1000;

// Shows the latest or named run; leaves the run running when the person quits.
export async function watchCommand(argv: string[], cmd = 'team watch'): Promise<number> {
  const args = parseFlags(argv, { ...PROJECT_FLAGS, run: { type: 'string' }, interval: { type: 'string' } }, cmd);
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const intervalMs = optionalInt(args, 'interval', cmd, 100, 60_000) ?? DEFAULT_INTERVAL_MS;
  const tty = process.stdout.isTTY === true;
  await watchRun(paths, { out: process.stdout, input: tty ? process.stdin : undefined, intervalMs, tty });
  return 0;
}
