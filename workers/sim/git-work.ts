// The sim's edits of given lines of a file, its own commits and shell commands, for the worktree tests.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Behaviour } from './scenario.js';
import type { SimEnv } from './sim-env.js';

// Replaces lines of files in the project (1-based line numbers); returns the paths edited.
export function editLines(env: SimEnv, behaviour: Behaviour): string[] {
  const edited: string[] = [];
  for (const edit of behaviour.edits ?? []) {
    const file = resolve(env.projectDir, edit.path);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[edit.line - 1] = edit.text;
    writeFileSync(file, lines.join('\n'));
    if (!edited.includes(edit.path)) edited.push(edit.path);
  }
  return edited;
}

// Commits everything in the project the way an agent would on its own (`force` adds ignored paths too).
export function commitOwnWork(env: SimEnv, behaviour: Behaviour): void {
  const commit = behaviour.commit;
  if (!commit) return;
  const git = (args: string[]) => execFileSync('git', args, { cwd: env.projectDir, stdio: ['ignore', 'ignore', 'inherit'] });
  git(['add', '--all']);
  if (commit.force?.length) git(['add', '--force', '--', ...commit.force]);
  git(['commit', '--quiet', '--allow-empty', '-m', commit.message ?? `sim: ${env.taskId} attempt ${env.attempt}`]);
}

// Runs the scenario's shell command in the project (`sh -c`), as an agent that runs commands does;
// a command that fails stops the sim with its error, as it would stop an agent's step.
export function runShell(env: SimEnv, behaviour: Behaviour): void {
  if (behaviour.shell === undefined) return;
  execFileSync('sh', ['-c', behaviour.shell], { cwd: env.projectDir, stdio: ['ignore', 'inherit', 'inherit'] });
}
