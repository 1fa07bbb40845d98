// When a run ends (or stops): what workers left uncommitted is committed on their task branches,
// and every branch of the run holding commits the integration branch lacks is kept and listed.
import { relative } from 'node:path';
import { git, linesOf } from '../git/git.js';
import { listWorktrees } from '../git/worktree.js';
import { append } from './facts.js';
import { INTEGRATION_WORKTREE, TASK_SEPARATOR, taskOfBranch } from '../session/isolation.js';
import { ensureIntegration } from './integration.js';
import { saveLeftovers } from './attempt.js';
import { checkCheckout } from './watch.js';
import type { IsolationParts } from '../session/isolation.js';

export interface KeptBranch {
  branch: string;
  commits: number;
}

// The run's task branches with commits not in `team/<run>`, and `team/<run>` with commits not in the user's branch.
export async function unmergedBranches(dir: string, integration: string, userBranch: string): Promise<KeptBranch[]> {
  const refs = linesOf((await git(dir, ['for-each-ref', '--format=%(refname:short)', `refs/heads/${integration}${TASK_SEPARATOR}*`])).stdout);
  const kept: KeptBranch[] = [];
  for (const branch of refs) {
    const count = Number((await git(dir, ['rev-list', '--count', `${integration}..${branch}`])).stdout);
    if (count > 0) kept.push({ branch, commits: count });
  }
  if (userBranch) {
    const ahead = await git(dir, ['rev-list', '--count', `${userBranch}..${integration}`]);
    if (ahead.ok && Number(ahead.stdout) > 0) kept.unshift({ branch: integration, commits: Number(ahead.stdout) });
  }
  return kept;
}

// Commits the workers' leftovers, records the branches kept, and lists them unless the run completed.
export async function settleBranches(run: IsolationParts, outcome: string): Promise<void> {
  const iso = run.isolation;
  if (!iso.active) return;
  try {
    await iso.serial(async () => {
      // An agent of the last stage may have moved or deleted team/<run>: it ends where the log says.
      if (iso.remote === undefined) await ensureIntegration(run);
      await checkCheckout(run, 'at the end of the run');
      const mine = iso.worktreePath('');
      for (const worktree of await listWorktrees(iso.projectDir)) {
        const inside = relative(mine, worktree.path);
        const task = taskOfBranch(iso.branch, worktree.branch);
        if (inside.startsWith('..') || inside === INTEGRATION_WORKTREE || task === undefined) continue;
        await saveLeftovers(run, worktree.path, worktree.branch, iso.attempts.get(task) ?? 1, `left when the run ended ${outcome}`);
      }
      const kept = await unmergedBranches(iso.projectDir, iso.branch, iso.record!.userBranch ?? '');
      if (kept.length > 0) append(run, { event: 'branches_kept', branches: kept });
      await run.events.flush();
      const tasks = kept.filter((k) => k.branch !== iso.branch);
      if (outcome !== 'completed' && tasks.length > 0) {
        const lines = tasks.map((k) => `   ${k.branch} (${k.commits} commit(s) not in ${iso.branch})`);
        run.progress.emit({ type: 'branches.kept', branches: kept }, `branches kept with work not merged into ${iso.branch}:\n${lines.join('\n')}`);
      }
    });
  } catch (error) {
    run.log.warn({ err: error }, 'settling the run\'s branches failed');
  }
}
