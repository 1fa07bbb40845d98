// Where a run's worktrees live: outside the project's tree, in the user's state folder
// (`$XDG_STATE_HOME/teamline/worktrees/<project>-<hash>/<run>/`, ~/.local/state when unset), so that
// the user's own tools — `node --test`, jest, pytest, eslint, a tsc include glob — never scan the
// copies of the project's files. Where that folder cannot be written (an agent CLI's sandbox that
// lets `team` write only the project), they stay in `.team/worktrees/<run>/`, and the run says so.
// The folder is recorded in run_started; runs from before it was recorded used `.team/worktrees/`.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';

// The project's own folder of worktrees: the fallback, and where older runs have theirs.
export const PROJECT_WORKTREES_DIR = join('.team', 'worktrees');

// The state folder's worktrees of the project in `projectDir`: one folder per project, named after
// it and told apart from a namesake by a hash of its real path.
export function stateWorktreesRoot(projectDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const state = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.local', 'state');
  const real = realOf(projectDir);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 10);
  const name = basename(real).replace(/[^A-Za-z0-9._-]/g, '_') || 'project';
  return join(state, 'teamline', 'worktrees', `${name}-${hash}`);
}

// Every folder that may hold the worktrees of the project's runs, the state folder's first.
export function worktreesRoots(projectDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [stateWorktreesRoot(projectDir, env), join(projectDir, PROJECT_WORKTREES_DIR)];
}

// Where a new run's worktrees go, and, when it is the project's own folder, why.
export function chooseWorktreesRoot(projectDir: string, env: NodeJS.ProcessEnv = process.env): { root: string; fallback?: string } {
  const root = stateWorktreesRoot(projectDir, env);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    // A sandbox may refuse the write itself while access(2) says yes: a real folder is the probe.
    rmdirSync(mkdtempSync(join(root, '.probe-')));
    return { root };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { root: join(projectDir, PROJECT_WORKTREES_DIR), fallback: `${root} cannot be written here (${code})` };
  }
}

// What run_started records of a new run's worktrees: their folder, and why it is the project's.
export function worktreesRecord(projectDir: string, runId: string): { worktrees: string; worktreesWhy?: string } {
  const { root, fallback } = chooseWorktreesRoot(projectDir);
  return { worktrees: join(root, runId), ...(fallback !== undefined && { worktreesWhy: fallback }) };
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
