// The run lock: one orchestrator drives a run; a lock left by a dead (or recycled, or torn) holder is taken over.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerProblems, logProblems, replayOf } from '../helpers/recovery-checks.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { ended, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';

// A run stopped by kill -9 while its slow task runs.
async function killedRun(): Promise<RecoveryProject> {
  const project = makeRecoveryProject('slow-exec');
  const orchestrator = project.spawn('1:executor', 'lock a crashed run', '--agent', 'sim');
  await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
  await killOrchestrator(orchestrator);
  return project;
}

function writeLock(project: RecoveryProject, text: string): void {
  writeFileSync(join(project.runDir(), 'lock.json'), text);
}

// A pid that just ended: no process holds it now.
async function deadPid(): Promise<number> {
  const child = execa('true', { reject: false });
  const pid = child.pid!;
  await child;
  return pid;
}

async function expectCompletedOnce(project: RecoveryProject): Promise<void> {
  const events = project.events();
  expect((await project.statusJson()).status).toBe('completed');
  expect(ledgerProblems(project.ledger(), events, project.runId(), ['plan', 't1', 'verify-1'])).toEqual([]);
  expect(logProblems(events)).toEqual([]);
  expect(await replayOf(project)).toEqual({ value: 'done', status: 'done', pending: [] });
  expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
}

describe('runtime/lock', () => {
  afterEach(removeRecoveryProjects);

  it('lets exactly one of two simultaneous resumes drive a killed run; the other exits 2 naming the pid that holds it', { timeout: 240_000 }, async () => {
    const project = await killedRun();

    const first = project.spawn('resume');
    const second = project.spawn('resume');
    const results = await Promise.all([first.result, second.result]);

    const codes = results.map((r) => r.exitCode).sort();
    expect(codes, results.map((r) => r.stderr).join('\n---\n')).toEqual([0, 2]);
    const winner = results[0]!.exitCode === 0 ? first : second;
    const loser = results[0]!.exitCode === 0 ? results[1]! : results[0]!;
    expect(loser.stderr).toContain(`is driven by another orchestrator: pid ${winner.pid} `);
    const resumes = project.events().filter((e) => e.event === 'run_resumed');
    expect(resumes.map((e) => e.pid)).toEqual([winner.pid]);
    await expectCompletedOnce(project);
  });

  it('takes over a stale lock (one naming a dead pid, one naming a live pid with another start time) and refuses a torn one until it is removed', { timeout: 240_000 }, async () => {
    const project = await killedRun();
    const since = new Date().toISOString();
    const takers: number[] = [];
    const stale = [
      JSON.stringify({ pid: await deadPid(), pidStart: 1, since, command: 'team resume' }),
      // This test process is alive, but it did not start at clock tick 1: a recycled pid.
      JSON.stringify({ pid: process.pid, pidStart: 1, since, command: 'team resume' }),
    ];
    for (const lock of stale) {
      writeLock(project, lock);
      const resume = project.spawn('resume');
      await waitFor(`resume pid ${resume.pid} to take the run over`, () => {
        if (resume.exited) throw new Error(`resume pid ${resume.pid} ended before taking over: ${lock}`);
        return project.events().some((e) => e.event === 'run_resumed' && e.pid === resume.pid);
      });
      takers.push(resume.pid);
      await killOrchestrator(resume);
    }
    writeLock(project, '{"pid": 4');
    const refused = await project.team('resume');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^team: the lock file \S+lock\.json cannot be read \(not a lock record\); if no orchestrator drives run \S+, remove that file and try again$/);
    rmSync(join(project.runDir(), 'lock.json'));

    const last = project.spawn('resume');
    const result = await last.result;

    expect(result.exitCode, result.stderr).toBe(0);
    expect(project.events().filter((e) => e.event === 'run_resumed').map((e) => e.pid)).toEqual([...takers, last.pid]);
    await expectCompletedOnce(project);
  });
});
