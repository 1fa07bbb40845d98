// On resume or takeover, before any git work: the git locks a crash left in teamline's own
// worktrees (and on the run's branches) are removed; one in the user's checkout is reported and
// left alone, as everything there is the user's.
import { rmSync } from 'node:fs';
import { relative } from 'node:path';
import { git } from '../git/git.js';
import { lockHeld, locksIn, refLocks } from '../git/stale-locks.js';
import { listWorktrees } from '../git/worktree.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';

// Removes the stale locks of the run's worktrees and branches, and reports those of the user's checkout.
export async function sweepStaleLocks(run: IsolationParts): Promise<void> {
  const iso = run.isolation;
  if (!iso.active) return;
  try {
    await iso.serial(async () => {
      const top = iso.projectDir;
      const common = (await git(top, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout;
      if (common === '') return;
      const mine = iso.worktreePath('');
      for (const worktree of await listWorktrees(top)) {
        const inside = relative(mine, worktree.path);
        if (inside.startsWith('..') || inside === '') continue;
        const gitDir = (await git(worktree.path, ['rev-parse', '--absolute-git-dir'])).stdout;
        if (gitDir !== '') for (const lock of locksIn(gitDir)) removeIfStale(run, lock, worktree.path);
      }
      for (const lock of refLocks(common, 'team', iso.runId)) removeIfStale(run, lock, top);
      for (const lock of locksIn(common)) {
        if (lockHeld(lock, top)) continue;
        append(run, { event: 'git_lock_stale', path: lock, removed: false });
        run.progress.emit({ type: 'git.lock', path: lock, removed: false }, `  ⚠ needs attention: ${lock} is a git lock in your checkout that no git process holds; teamline leaves it alone: remove it once no git runs there`);
      }
      await run.events.flush();
    });
  } catch (error) {
    run.log.warn({ err: error }, 'the git locks a crash may have left were not looked for');
  }
}

function removeIfStale(run: IsolationParts, lock: string, folder: string): void {
  if (lockHeld(lock, folder)) return;
  rmSync(lock, { force: true });
  append(run, { event: 'git_lock_stale', path: lock, removed: true });
  run.progress.emit({ type: 'git.lock', path: lock, removed: true }, `  removed ${lock}: a git lock in teamline's own worktree that no git process holds (left by a crash)`);
}
