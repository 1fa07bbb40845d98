import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, type CancelProject } from '../helpers/cancel-run.js';

// Every file of a run folder with its contents: what "changes nothing" is checked against.
function snapshotRun(project: CancelProject, runId: string): Record<string, string> {
  const root = project.runDir(runId);
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return files;
}

describe('team cancel and team resume of an ended run', () => {
  let project: CancelProject;
  let runId: string;

  // One run, cancelled once from another process: the starting point of every test here.
  beforeAll(async () => {
    project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 1_000 });
    const run = project.start('1:executor', 'cancel me once');
    runId = await project.waitForWorkers(['t1']);
    expect((await project.run('cancel')).exitCode).toBe(0);
    expect((await run.exited).exitCode).toBe(3);
  }, 120_000);

  afterAll(cleanUpCancelProjects);

  it('says a cancelled run is already cancelled, exits 0 and leaves the run folder as it was', async () => {
    const before = snapshotRun(project, runId);
    const again = await project.run('cancel');
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain(`run ${runId} already ended cancelled; nothing to cancel, nothing changed`);
    expect(project.listEvents(runId)).toEqual(Object.keys(before).filter((f) => f.startsWith('events/')).map((f) => f.slice('events/'.length)).sort());
    expect(snapshotRun(project, runId)).toEqual(before);
  }, 60_000);

  it('does the same with --force', async () => {
    const before = snapshotRun(project, runId);
    const again = await project.run('cancel', '--force');
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('already ended cancelled');
    expect(snapshotRun(project, runId)).toEqual(before);
  }, 60_000);

  it('refuses to resume a cancelled run with exit 2 and writes no event', async () => {
    const before = snapshotRun(project, runId);
    const resumed = await project.run('resume');
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(`run ${runId} was cancelled, and a cancelled run stays cancelled`);
    expect(snapshotRun(project, runId)).toEqual(before);
  }, 60_000);

  it('refuses to resume it with --retry-interrupted too', async () => {
    const before = snapshotRun(project, runId);
    const resumed = await project.run('resume', '--retry-interrupted', '--run', runId);
    expect(resumed.exitCode).toBe(2);
    expect(snapshotRun(project, runId)).toEqual(before);
  }, 60_000);

  it('says a completed run has nothing to cancel and changes nothing', async () => {
    const done = makeCancelProject({ scenario: 'cancel-completes.json', graceMs: 1_000 });
    const run = await done.run('1:executor', 'finish at once');
    expect(run.exitCode).toBe(0);
    const doneId = done.currentRun()!;
    const before = snapshotRun(done, doneId);
    const cancel = await done.run('cancel');
    expect(cancel.exitCode).toBe(0);
    expect(cancel.stderr).toContain(`run ${doneId} already ended completed; nothing to cancel, nothing changed`);
    expect(snapshotRun(done, doneId)).toEqual(before);
    expect((await done.statusJson()).status).toBe('completed');
  }, 120_000);
});
