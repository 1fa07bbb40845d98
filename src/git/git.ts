// Runs real git and returns what happened as data: git's refusals are outcomes, not exceptions.
import { runProgram } from '../sys/run-program.js';

export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

// Variables that would point git at another repository than the folder it runs in.
const REPO_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX'];

// `git <args>` in `cwd` (with `input` on its stdin, else none; `own` variables set, such as a
// temporary GIT_INDEX_FILE); never throws for a non-zero exit.
export async function git(cwd: string, args: string[], input?: string, own: Record<string, string> = {}): Promise<GitResult> {
  const env: Record<string, string | undefined> = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no' };
  for (const name of REPO_VARIABLES) delete env[name];
  Object.assign(env, own);
  const result = await runProgram('git', args, { cwd, env, ...(input !== undefined && { input }) });
  return { ok: result.code === 0, code: result.code, stdout: result.stdout.trimEnd(), stderr: result.stderr.trim() };
}

// `git <args>` that must succeed: a failure here is our bug or a broken repository, so it throws.
export async function gitOrThrow(cwd: string, args: string[], input?: string): Promise<string> {
  const result = await git(cwd, args, input);
  if (!result.ok) throw new Error(`git ${args.join(' ')} (in ${cwd}) exited ${result.code}: ${result.stderr || result.stdout}`);
  return result.stdout;
}

// The non-empty lines of git's output.
export function linesOf(text: string): string[] {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

// Whether the repository of each folder names an author, asked once per process: a run commits
// and merges in the same few folders (its worktrees) many times.
const named = new Map<string, Promise<boolean>>();

// An author for teamline's own commits when neither the repository nor the environment names one.
export async function identity(dir: string): Promise<string[]> {
  let hasEmail = named.get(dir);
  if (hasEmail === undefined) named.set(dir, (hasEmail = git(dir, ['config', 'user.email']).then((email) => email.ok)));
  const fromEnv = process.env.GIT_AUTHOR_EMAIL && process.env.GIT_COMMITTER_EMAIL;
  return (await hasEmail) || fromEnv ? [] : ['-c', 'user.name=teamline', '-c', 'user.email=teamline@localhost'];
}
