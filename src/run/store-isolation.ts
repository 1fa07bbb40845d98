// The isolation of a run whose log is in PostgreSQL (team.store, --store): its attempts run on
// `team worker` processes, each in its own folder; with team.remote the code goes through git.
import type { IsolationRecord } from '../log/schema.js';
import { hasRemote, reachRemote } from '../git/remote.js';
import { probeRepo } from '../git/repo.js';
import { UsageError } from '../sys/errors.js';
import { integrationBranch } from '../isolation/start.js';
import { pushIntegration } from '../isolation/remote.js';
import { ensureIntegration } from '../isolation/integration.js';
import { worktreesRecord } from '../session/worktree-root.js';
import type { RunSession } from '../session/session.js';

// Without team.remote, a run on the store has no branches: each worker works in its own folder.
const NO_REMOTE = { mode: 'none' as const, reason: 'attempts run on team workers, each in its own folder, and no team.remote carries the code between them' };

// With team.remote the code goes through git: `team/<run>` from this clone's HEAD, task branches
// made, worked on and pushed by the workers in their own clones, merged here and pushed back.
export async function chooseStoreIsolation(projectDir: string, remote: string | undefined, runId: string): Promise<IsolationRecord> {
  if (remote === undefined) return NO_REMOTE;
  const repo = await probeRepo(projectDir);
  if (repo.kind === 'none') throw new UsageError(`team.remote: "${remote}" needs a git repository with a commit, and ${repo.reason}`);
  if (!(await hasRemote(projectDir, remote))) throw new UsageError(`team.remote: this repository has no remote "${remote}" (\`git remote -v\` lists its remotes)`);
  const reached = await reachRemote(projectDir, remote);
  if (!reached.ok) throw new UsageError(`team.remote: the remote "${remote}" cannot be reached (${reached.stderr || `git exited ${reached.code}`}); nothing was started`);
  return { mode: 'worktree', reason: `team.remote: the branches go through ${remote}`, base: repo.head, userBranch: repo.branch, prefix: repo.prefix, remote, branch: integrationBranch(runId), ...worktreesRecord(projectDir, runId) };
}

// Says which isolation runs; through a remote, makes `team/<run>` and pushes it for the workers.
export async function openStoreIsolation(session: RunSession): Promise<void> {
  const iso = session.isolation;
  if (iso.remote === undefined) {
    session.progress.emit({ type: 'isolation', mode: 'none', reason: NO_REMOTE.reason }, `isolation: none — ${NO_REMOTE.reason}`);
    return;
  }
  await iso.serial(() => ensureIntegration(session));
  const refused = await pushIntegration(session);
  if (refused) throw new UsageError(`team.remote: ${refused}`);
  session.progress.emit({ type: 'isolation', mode: 'worktree', branch: iso.branch, remote: iso.remote }, `isolation: through ${iso.remote} — each worker on its task's branch in its own clone; merged work on ${iso.branch}, pushed to ${iso.remote}`);
}
