// `team resume` on a disk that is still full (a real tmpfs of a few megabytes, mounted for the
// project; root only): it says the disk is full and names the file, exits 1 with no stack trace,
// records nothing twice, and continues once space is freed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject } from '../helpers/cancel-run.js';

const AS_ROOT = process.getuid?.() === 0;
const mounts: string[] = [];

afterEach(async () => {
  await cleanUpCancelProjects().catch(() => undefined);
  // The project folder was made (with its config) before the tmpfs was mounted over it: what the
  // clean-up removed was the tmpfs's; the folder beneath shows again once it is unmounted.
  for (const dir of mounts.splice(0)) {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

// Fills the file system of `dir` with one file; returns the file.
function fill(dir: string): string {
  const filler = join(dir, 'filler.bin');
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd ends with "No space left on device": the disk is full, as wanted.
  }
  return filler;
}

describe.skipIf(!AS_ROOT)('a full disk (a tmpfs mounted for the project; needs root)', () => {
  it('team resume says the disk is full and names the file, records nothing twice, and continues once space is freed', async () => {
    const project = makeCancelProject({ scenario: 'recovery-slow-exec.json', graceMs: 500 });
    const config = readFileSync(join(project.dir, '.team/config.json'), 'utf8');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', project.dir]);
    mounts.push(project.dir);
    project.write('.team/config.json', config);
    const run = project.start('1:executor', 'a run the disk fills under');
    const runId = await project.waitForWorkers(['t1']);
    process.kill(run.pid, 'SIGKILL');
    await run.exited;
    const before = project.events(runId).length;

    const filler = fill(project.dir);
    const resumed = await project.run('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(1);
    expect(resumed.stderr).toMatch(new RegExp(`the disk is full: ${project.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.team/runs/${runId}/\\S+ cannot be written \\(ENOSPC: no space left on device\\)`));
    expect(resumed.stderr).not.toContain('internal error');
    expect(resumed.stderr).not.toMatch(/\n\s+at /);
    // Whatever the resume recorded before the disk refused it is recorded once.
    const during = project.events(runId);
    expect(during.length).toBeGreaterThanOrEqual(before);

    rmSync(filler);
    const again = await project.run('resume');
    expect(again.exitCode, again.stderr).toBe(0);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'run_completed')).toHaveLength(1);
    const terminal = events.filter((e) => e.event === 'task_finished').map((e) => `${e.task_id}#${e.attempt}`);
    expect(new Set(terminal).size).toBe(terminal.length);
    const status = await project.run('status', '--json');
    expect(JSON.parse(status.stdout).attention.conflicts).toEqual([]);
    expect(existsSync(join(project.dir, '.team/runs', runId, 'handoffs'))).toBe(true);
  }, 120_000);
});
