// The bench's temporary folders, removed together when the bench process ends, never between rows.
// On ext4 without a journal (these machines' disks), every new file's inode is looked for past the
// inodes deleted in the last one to six minutes: removing one row's thousands of files right before
// the next row would make that row pay for them, the orchestrator (more files per task) more than
// its baseline. Removing them all at the end keeps each row's file system as a user's project is.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made: string[] = [];

// A fresh folder under BENCH_DIR (default the system's temporary folder), removed at exit.
export function makeScratchDir(prefix: string): string {
  if (made.length === 0) process.once('exit', removeScratchDirs);
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), prefix));
  made.push(dir);
  return dir;
}

// Removes every folder made so far (at exit, or once the last row is measured).
export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// The git identity the bench's repositories commit with.
export const BENCH_GIT_ENV = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

// A scratch git repository with these files (path → text) committed on main, and the environment
// the runs in it use (the process's, with that identity).
export function makeScratchRepo(prefix: string, files: Record<string, string>): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = makeScratchDir(prefix);
  const env = { ...process.env, ...BENCH_GIT_ENV };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'base');
  return { dir, env };
}
