// What a run writes must be writable before anything is: `.team/runs`, and with worktrees the
// repository's git folder (branches, worktrees, the exclude file). An agent CLI's sandbox may keep
// either read-only; a clear refusal (exit 2) then replaces an error halfway through the start.
import { closeSync, existsSync, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { runsDir } from '../checkpoint/store.js';
import { UsageError } from '../errors.js';
import { git } from '../git/git.js';

// Refuses when the project's run folder (`.team/runs`, or `dir`) cannot be made or written in.
export function assertRunsWritable(projectDir: string, dir = runsDir(projectDir)): void {
  const problem = writeProblem(dir, true);
  if (problem !== undefined) {
    throw new UsageError(`cannot write ${dir} (${problem}): teamline keeps each run's files there; run \`team\` where the project folder is writable (in an agent CLI's sandbox: outside it)`);
  }
}

// Refuses when worktrees would isolate the workers and the repository's git folder is read-only.
export async function assertGitWritable(projectDir: string, why: string): Promise<void> {
  const path = (await git(projectDir, ['rev-parse', '--git-common-dir'])).stdout;
  if (path === '') return;
  const dir = isAbsolute(path) ? path : join(projectDir, path);
  const problem = writeProblem(dir, false);
  if (problem !== undefined) {
    throw new UsageError(
      `cannot write ${dir} (${problem}): with worktrees (${why}) teamline makes each worker's branch and worktree in the repository; run \`team\` where ${dir} is writable (in an agent CLI's sandbox: outside it), or set team.isolation to "none"`,
    );
  }
}

// Why no file can be made in `dir`, or undefined when one can (made and removed at once).
function writeProblem(dir: string, make: boolean): string | undefined {
  try {
    if (make) mkdirSync(dir, { recursive: true });
  } catch {
    // A recursive mkdir on a read-only file system says ENOENT: the first folder that exists tells why.
    let parent = dirname(dir);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    return probe(parent) ?? probe(dir);
  }
  return probe(dir);
}

// Makes and removes a file in `dir`; why it cannot, or undefined.
function probe(dir: string): string | undefined {
  const file = join(dir, `.teamline-probe-${process.pid}`);
  try {
    closeSync(openSync(file, 'wx'));
    unlinkSync(file);
    return undefined;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') return undefined;
    // Node's message is `CODE: what, syscall 'path'`: the path is said already.
    return message.split(',')[0];
  }
}
