// The integration branch `team/<run>` and its worktree, made ready before each git step of a run:
// the branch where the log last put it (src/isolation/recorded-tip.ts), the worktree there, clean.
import { excludeTeamFolder } from '../git/team-exclude.js';
import { ensureBranch, ensureWorktree, stashAll } from '../git/worktree.js';
import { abortMerge, mergeInProgress } from '../git/merge.js';
import { commitOf } from '../git/repo.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';
import { INTEGRATION_WORKTREE } from '../session/isolation.js';
import { keepRecordedTip } from './recorded-tip.js';

// The integration worktree, ready, where verify's gates and agents run (the project without isolation).
export async function verifyDir(run: IsolationParts): Promise<string> {
  const iso = run.isolation;
  if (!iso.active) return iso.projectDir;
  await iso.serial(() => ensureIntegration(run));
  return iso.workDir('team-verify', INTEGRATION_WORKTREE);
}

// The integration branch and its worktree exist, with `.team/` excluded and no merge cut short;
// returns the worktree's folder. Run it inside the isolation's serial steps.
export async function ensureIntegration(run: IsolationParts): Promise<string> {
  const iso = run.isolation;
  const path = iso.worktreePath(INTEGRATION_WORKTREE);
  const top = iso.projectDir;
  excludeTeamFolder(top);
  const restored = iso.tip === undefined ? undefined : await keepRecordedTip(run, iso.tip);
  // Made now, or made by an orchestrator that crashed before recording it: either way the record starts here.
  if (iso.tip === undefined) {
    const made = await ensureBranch(top, iso.branch, iso.record!.base!);
    const commit = made ? iso.record!.base! : (await commitOf(top, `refs/heads/${iso.branch}`))!;
    append(run, { event: 'branch_created', branch: iso.branch, from: iso.record!.userBranch || 'HEAD', commit });
  }
  const how = await ensureWorktree(top, path, iso.branch, iso.worktrees.has(path));
  if (how !== 'adopted') append(run, { event: 'worktree_ready', task_id: 'integration', attempt: 1, branch: iso.branch, path, worker: INTEGRATION_WORKTREE, how });
  if (await mergeInProgress(path)) await abortMerge(path);
  // The folder still holds what the moved branch held: it goes to a stash, the worktree is at the record.
  if (restored?.was !== undefined) await stashLeftovers(run, path, `what ${iso.branch} held while it had moved to ${restored.was.slice(0, 10)}`);
  await run.events.flush();
  return path;
}

// Moves what a worktree that must stay clean holds uncommitted to a stash, as a fact of the log.
export async function stashLeftovers(run: IsolationParts, path: string, why: string): Promise<void> {
  const stash = await stashAll(path, `teamline: ${why}`);
  if (stash) append(run, { event: 'worktree_stashed', path, stash, why });
}
