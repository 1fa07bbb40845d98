// A sim project that is a git repository with one commit, and readers of its branches.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { execa } from 'execa';
import { makeSimProject, type SimProject } from './sim-project.js';
import { CLI, runTeam, type TeamResult } from './team.js';

// Who commits in the test repositories (and so in teamline's own commits there).
export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
};

export interface GitProject extends SimProject {
  /** `git <args>` in the project; its trimmed stdout. Throws on failure. */
  git(...args: string[]): string;
  /** `team <args>` with the git identity and the sim ledger outside the worktrees. */
  run(...args: string[]): Promise<TeamResult>;
  /** The sim ledger's file. */
  ledgerFile: string;
}

// A sim project (scenario, config, `files`) committed on branch main as the first commit.
export function makeGitProject(scenario: object, config: Record<string, unknown> = {}, files: Record<string, string> = {}): GitProject {
  const project = makeSimProject(scenario, config);
  for (const [path, text] of Object.entries(files)) project.write(path, text);
  const git = commitAsRepo(project.dir);
  const ledgerFile = join(project.dir, '.team', 'sim-ledger.jsonl');
  const run = (...args: string[]) => runTeam(args, { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: ledgerFile } });
  return { ...project, git, run, ledgerFile };
}

// Makes `dir` a git repository on branch main whose first commit holds its files (not `.team/`);
// returns `git <args>` there (its trimmed stdout, throwing on failure).
export function commitAsRepo(dir: string): (...args: string[]) => string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
  git('init', '--quiet', '--initial-branch', 'main');
  git('config', 'user.name', 'Test User');
  git('config', 'user.email', 'user@example.com');
  git('add', '--all', '--', '.', ':!.team');
  git('commit', '--quiet', '-m', 'base');
  return git;
}

// The file's text at a commit-ish.
export function showFile(project: GitProject, ref: string, path: string): string {
  return project.git('show', `${ref}:${path}`);
}

// `team <args>` in the project as the leader of a process group of its own, as a terminal starts
// it: a test may kill the whole group (the orchestrator, its git, a hook) with one SIGKILL.
export async function runAsGroup(project: GitProject, ...args: string[]): Promise<TeamResult> {
  const result = await execa(process.execPath, [CLI, ...args], { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile }, detached: true, reject: false, stdin: 'ignore' });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

// The folder of a run's worktrees, as its run_started recorded it: outside the project, in the
// state folder the suite's setup points XDG_STATE_HOME at (test/helpers/state-home.ts).
export function worktreesFolder(run: { events: ReadonlyArray<{ event: string }> }): string {
  const started = run.events.find((e) => e.event === 'run_started') as { isolation?: { worktrees?: string } } | undefined;
  const folder = started?.isolation?.worktrees;
  if (folder === undefined) throw new Error('run_started records no worktrees folder');
  return folder;
}
