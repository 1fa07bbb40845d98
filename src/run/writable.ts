// What a run writes must be writable before anything is: `.team/runs`, and for a run with worktrees
// the repository's git folder (a new run without it takes no worktrees: isolation-start.ts). An
// agent CLI's sandbox may keep either read-only; a clear refusal (exit 2) then replaces an error
// halfway through the start.
import { closeSync, existsSync, openSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runsDir } from '../log/write.js';
import { UsageError } from '../sys/errors.js';
import { gitWriteProblem } from '../git/team-exclude.js';

// Refuses when the project's run folder (`.team/runs`, or `dir`) cannot be made or written in.
export function assertRunsWritable(projectDir: string, dir = runsDir(projectDir)): void {
  const problem = writeProblem(dir);
  if (problem !== undefined) {
    throw new UsageError(`--cwd: cannot write ${dir} (${problem}): teamline keeps each run's files there; run \`team\` where the project folder is writable (in an agent CLI's sandbox: outside it)`);
  }
}

// Refuses to drive a run whose workers work in worktrees while the repository's git folder is read-only.
export function assertGitWritable(projectDir: string, runId: string): void {
  const problem = gitWriteProblem(projectDir);
  if (problem !== undefined) {
    throw new UsageError(`${problem}: run ${runId} works in worktrees, whose branches and worktrees are made in the repository; run \`team\` where it can be written (in an agent CLI's sandbox: outside it)`);
  }
}

// Why the project's run folder cannot be written, or undefined when it can (asked, not refused).
export function runsWriteProblem(projectDir: string, dir = runsDir(projectDir)): string | undefined {
  return writeProblem(dir);
}

// Why `dir` cannot be made or a file made in it, or undefined when it can: the folder itself, or
// the nearest one above it that exists, is probed (a file made and removed at once). No recursive
// mkdir: it spins forever where mkdir answers ENOENT in a folder that exists, as in /proc.
function writeProblem(dir: string): string | undefined {
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  return probe(existing);
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
