// The bench's temporary folders, removed together when the bench process ends, never between rows.
// On ext4 without a journal (these machines' disks), every new file's inode is looked for past the
// inodes deleted in the last one to six minutes: removing one row's thousands of files right before
// the next row would make that row pay for them, the orchestrator (more files per task) more than
// its baseline. Removing them all at the end keeps each row's file system as a user's project is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
