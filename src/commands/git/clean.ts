// `team clean [--run ID]`: removes the worktrees and merged branches of ended runs (all, or one),
// and of runs whose folder is gone but whose worktrees are still there.
import { existsSync, readdirSync } from 'node:fs';
import { validateId } from '../../log/guards.js';
import { resolveRun, runPaths, runsDir } from '../../log/write.js';
import { UsageError } from '../../sys/errors.js';
import { cleanRun, type CleanReport } from '../../isolation/clean.js';
import { cleanOrphan, orphanRunIds } from '../../isolation/clean-orphans.js';
import { makeProgress, type Progress } from '../../session/progress.js';
import { loadRunView } from '../../log/read-view.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';

// A run that ended: nothing drives it and nothing will (a stopped run waits for a decision).
const ENDED = new Set(['completed', 'failed', 'cancelled']);

// Cleans the named run (refused unless it ended) or every ended run of the project.
export async function cleanCommand(argv: string[]): Promise<number> {
  const cmd = 'team clean';
  const args = parseFlags(argv, FLAGS.clean, cmd);
  const project = openProject(args);
  const progress = makeProgress({ json: args.values.json === true });
  const named = optionalString(args, 'run');
  const orphans = await orphanRunIds(project.dir);
  if (named !== undefined && orphans.includes(validateId(named, '--run'))) {
    tellCleaned(progress, named, await cleanOrphan(project.dir, named), true);
    return 0;
  }
  const recorded = existsSync(runsDir(project.dir)) ? readdirSync(runsDir(project.dir)).filter((n) => n !== 'current' && existsSync(runPaths(project.dir, n).runJson)) : [];
  const ids = named !== undefined ? [named] : recorded;
  let cleaned = 0;
  for (const id of ids.sort()) {
    const paths = resolveRun(project.dir, id);
    const { status, branches } = loadRunView(paths, project.dir);
    if (!ENDED.has(status)) {
      if (named !== undefined) throw new UsageError(`${cmd}: run ${id} is ${status}; only ended runs (completed, failed, cancelled) are cleaned`);
      continue;
    }
    if (!branches?.branch) continue;
    tellCleaned(progress, id, await cleanRun(paths, id, branches.branch, branches.worktrees, project.write), false);
    cleaned += 1;
  }
  for (const id of named === undefined ? orphans : []) {
    tellCleaned(progress, id, await cleanOrphan(project.dir, id), true);
    cleaned += 1;
  }
  if (cleaned === 0) progress.emit({ type: 'clean', runs: 0 }, 'no ended run with worktrees to clean');
  return 0;
}

// What was cleaned of one run, for a person and for --json.
function tellCleaned(progress: Progress, id: string, report: CleanReport, orphan: boolean): void {
  const kept = report.kept.length > 0 ? `; kept ${report.kept.join(', ')}` : '';
  // A branch kept for work nowhere else: how to delete it, and what that deletes.
  const howTo = report.unmerged.length > 0 ? `\n  to delete the kept branches, and the commits only they hold: git branch -D ${report.unmerged.join(' ')} (look first: git log -p ${report.unmerged[0]})` : '';
  const gone = orphan ? ' (its run folder is gone)' : '';
  progress.emit({ type: 'clean', run: id, ...(orphan && { orphan }), ...report }, `run ${id}${gone}: removed ${report.removed.length} worktree(s), deleted ${report.deleted.length} branch(es)${kept}${howTo}`);
}
