// Under isolation none the workers share the user's checkout: the uncommitted work in it at the
// run's start (tracked edits and untracked files git does not ignore) is kept as a commit under
// refs/team/<run>/start (checkout_saved), so that `team restore` can bring it back whatever the
// agents did to it. A checkout with nothing uncommitted, or a folder that is no repository, saves nothing.
import { join } from 'node:path';
import { dirtyPaths, isTeamPath, probeRepo } from '../git/repo.js';
import { snapshotWorkingTree } from '../git/snapshot.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';

// teamline's own files in a checkout (`prefix`: the project's folder in it): never part of the user's work.
export function teamlinePaths(prefix: string): string[] {
  return [join(prefix, '.team'), join(prefix, '.checkpoints')];
}

// The ref a run's saved checkout is kept under, and the one a restore keeps what it replaced under.
export function savedRef(runId: string, which: 'start' | 'before-restore'): string {
  return `refs/team/${runId}/${which}`;
}

// Saves the checkout once, at a fresh start (a resume finds checkout_saved, or a run that saved nothing, already past its start).
export async function saveCheckout(run: IsolationParts): Promise<void> {
  const iso = run.isolation;
  if (iso.record?.mode !== 'none' || iso.told.saved !== undefined) return;
  const repo = await probeRepo(iso.projectDir);
  if (repo.kind !== 'git') return;
  const paths = (await dirtyPaths(repo.top)).filter((path) => !isTeamPath(path) && !path.startsWith('.checkpoints/') && !path.includes('/.checkpoints/'));
  if (paths.length === 0) return;
  const ref = savedRef(iso.runId, 'start');
  const listed = `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}`;
  try {
    const commit = await snapshotWorkingTree(repo.top, ref, `team: your working tree at the start of run ${iso.runId}`, teamlinePaths(repo.prefix));
    append(run, { event: 'checkout_saved', ref, commit, paths: paths.slice(0, 50) });
    run.progress.emit({ type: 'checkout.saved', ref, commit, paths }, `isolation: your uncommitted work (${listed}) is saved as ${ref}: \`team restore --run ${iso.runId}\` brings it back`);
  } catch (error) {
    // A repository that cannot be written (a read-only .git) keeps no copy: said, and the run goes on.
    const why = (error as Error).message.split('\n')[0];
    run.progress.emit({ type: 'checkout.unsaved', paths, why }, `isolation: your uncommitted work (${listed}) could not be saved for \`team restore\` (${why}); the workers share it as it is`);
  }
}
