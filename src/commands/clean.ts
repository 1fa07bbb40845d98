// `team clean [--run ID]`: removes the worktrees and merged branches of ended runs (all, or one).
import { existsSync, readdirSync } from 'node:fs';
import { validateId } from '../checkpoint/guards.js';
import { resolveRun, runsDir } from '../checkpoint/store.js';
import { UsageError } from '../errors.js';
import { cleanRun } from '../runtime/clean.js';
import { readBranches } from '../runtime/isolation-view.js';
import { makeProgress } from '../runtime/progress.js';
import { loadRunView } from '../runtime/view.js';
import { optionalString, parseFlags } from './args.js';
import { FLAGS } from './flags.js';
import { openProject } from './project.js';

// A run that ended: nothing drives it and nothing will (a stopped run waits for a decision).
const ENDED = new Set(['completed', 'failed', 'cancelled']);

// Cleans the named run (refused unless it ended) or every ended run of the project.
export async function cleanCommand(argv: string[]): Promise<number> {
  const cmd = 'team clean';
  const args = parseFlags(argv, FLAGS.clean, cmd);
  const project = openProject(args);
  const progress = makeProgress({ json: args.values.json === true });
  const named = optionalString(args, 'run');
  const ids = named !== undefined ? [validateId(named, '--run')] : existsSync(runsDir(project.dir)) ? readdirSync(runsDir(project.dir)).filter((n) => n !== 'current') : [];
  let cleaned = 0;
  for (const id of ids.sort()) {
    const paths = resolveRun(project.dir, id);
    const status = loadRunView(paths, project.dir).status;
    if (!ENDED.has(status)) {
      if (named !== undefined) throw new UsageError(`${cmd}: run ${id} is ${status}; only ended runs (completed, failed, cancelled) are cleaned`);
      continue;
    }
    const branches = readBranches(paths);
    if (!branches?.branch) continue;
    const report = await cleanRun(paths, id, branches.branch, project.write);
    cleaned += 1;
    const kept = report.kept.length > 0 ? `; kept ${report.kept.join(', ')}` : '';
    progress.emit({ type: 'clean', run: id, ...report }, `run ${id}: removed ${report.removed.length} worktree(s), deleted ${report.deleted.length} branch(es)${kept}`);
  }
  if (cleaned === 0) progress.emit({ type: 'clean', runs: 0 }, 'no ended run with worktrees to clean');
  return 0;
}
