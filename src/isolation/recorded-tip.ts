// The integration branch `team/<run>` is the run's record: where the log last put it (created,
// merged into, restored). Moved or deleted behind teamline's back (by an agent), it is put back at
// that commit, never re-made from the run's base; what it pointed to instead is kept as a branch.
import { git, gitOrThrow } from '../git/git.js';
import { commitOf } from '../git/repo.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';

// A branch keepRecordedTip put back: where it pointed before (undefined when it was gone).
export interface Restored {
  was?: string;
}

// Puts `team/<run>` back at `recorded` unless it is there, or at the merge of a merge the log
// started and did not record done (a crash after git's merge commit); undefined when nothing moved.
export async function keepRecordedTip(run: IsolationParts, recorded: string): Promise<Restored | undefined> {
  const iso = run.isolation;
  const top = iso.projectDir;
  const branch = iso.branch;
  const now = await commitOf(top, `refs/heads/${branch}`);
  if (now === recorded || (now !== undefined && (await finishesPendingMerge(top, now, recorded, [...iso.pendingMerges.values()])))) return undefined;
  if ((await commitOf(top, recorded)) === undefined) throw new Error(`${branch} cannot be put back: the commit the log recorded for it, ${recorded}, is not in the repository`);
  const kept = now === undefined ? undefined : `${branch}-kept/integration-${now.slice(0, 10)}`;
  if (kept !== undefined) await gitOrThrow(top, ['update-ref', `refs/heads/${kept}`, now!]);
  await gitOrThrow(top, ['update-ref', `refs/heads/${branch}`, recorded]);
  append(run, { event: 'branch_restored', branch, commit: recorded, ...(now !== undefined && { was: now, kept }) });
  await run.events.flush();
  const at = `restored at ${recorded.slice(0, 10)}, the commit the log recorded`;
  const what = now === undefined ? `${branch} was deleted while the run ran: ${at}` : `${branch} had moved to ${now.slice(0, 10)} while the run ran (kept as ${kept}): ${at}`;
  run.progress.emit({ type: 'branch.restored', branch, commit: recorded, ...(now !== undefined && { was: now, kept }) }, `  ⚠ ${what}`);
  return now === undefined ? {} : { was: now };
}

// True when `now` is a merge commit of `recorded` with the tip of a merge the log started.
async function finishesPendingMerge(top: string, now: string, recorded: string, tips: string[]): Promise<boolean> {
  if (tips.length === 0) return false;
  const parents = (await git(top, ['rev-list', '--parents', '-n', '1', now])).stdout.split(' ').slice(1);
  return parents.length === 2 && parents[0] === recorded && tips.includes(parents[1]!);
}
