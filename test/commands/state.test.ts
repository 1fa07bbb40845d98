import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, removeProjects, type TestProject } from '../helpers/project.js';
import { runTeam } from '../helpers/team.js';

afterEach(removeProjects);

const RUN_ID = /^\d{8}T\d{12}Z-[0-9a-f]{6}$/;

function startTask(project: TestProject, runId: string, task = 't1') {
  return project.team('state', 'start-task', '--run', runId, '--task', task, '--stage', 'team-exec', '--agent', 'sim');
}

function finishTask(project: TestProject, runId: string, status: string, task = 't1') {
  return project.team('state', 'finish-task', '--run', runId, '--task', task, '--status', status, '--evidence', `ended ${status}`);
}

// A run whose task t1 has attempt 1 ended with `status`; returns the run id.
async function withEndedAttempt(project: TestProject, status: string): Promise<string> {
  const runId = await project.startRun();
  expect((await startTask(project, runId)).exitCode).toBe(0);
  expect((await finishTask(project, runId, status)).exitCode).toBe(0);
  return runId;
}

describe('team state start-run', () => {
  it('prints a new run id and points current at it', async () => {
    const project = makeProject();
    const result = await project.team('state', 'start-run', '--profile', 'p', '--stage', 'team-exec');
    expect(result.exitCode).toBe(0);
    const runId = result.stdout.trim();
    expect(runId).toMatch(RUN_ID);
    expect(readFileSync(join(project.dir, '.team/runs/current'), 'utf8')).toBe(`${runId}\n`);
    expect(JSON.parse(readFileSync(join(project.runDir(runId), 'run.json'), 'utf8'))).toMatchObject({ run_id: runId, profile: 'p', stage: 'team-exec', status: 'running' });
  });

  it('leaves no temporary file beside run.json or current', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    expect(readdirSync(project.runDir(runId)).sort()).toEqual(['approvals', 'attempts', 'events', 'handoffs', 'run.json']);
    expect(readdirSync(join(project.dir, '.team/runs')).sort()).toEqual([runId, 'current']);
    expect(project.listEvents(runId)).toEqual([]);
  });
});

describe('team state status', () => {
  it('prints what team status prints', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    await startTask(project, runId);
    const low = await project.team('state', 'status', '--json');
    const high = await project.team('status', '--json');
    expect(low.exitCode).toBe(0);
    expect(JSON.parse(low.stdout)).toEqual(JSON.parse(high.stdout));
  });
});

describe('team state start-task sessions', () => {
  it('records the session from TEAM_SESSION when --session is absent', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const result = await runTeam(['state', 'start-task', '--run', runId, '--task', 't1', '--stage', 'team-exec', '--agent', 'sim', '--parent-session', 'p-1'], {
      cwd: project.dir,
      env: { TEAM_SESSION: 's-42' },
    });
    expect(result.exitCode).toBe(0);
    const [name] = project.listEvents(runId);
    expect(JSON.parse(readFileSync(join(project.eventsDir(runId), name!), 'utf8'))).toMatchObject({ event: 'task_started', session: 's-42', parent_session: 'p-1' });
  });
});

describe('team state retry', () => {
  for (const ended of ['failed', 'interrupted']) {
    it(`starts attempt 2 after a ${ended} attempt and a recorded retry, keeping attempt 1`, async () => {
      const project = makeProject();
      const runId = await withEndedAttempt(project, ended);
      const retry = await project.team('state', 'retry', '--run', runId, '--task', 't1', '--reason', 'flaky network');
      expect(retry).toMatchObject({ exitCode: 0, stdout: 't1 retry recorded: next attempt 2\n' });
      expect(await startTask(project, runId)).toMatchObject({ exitCode: 0, stdout: 't1 a2 started\n' });

      const status = await project.statusJson();
      expect(status.tasks[0]).toMatchObject({
        id: 't1',
        status: 'running',
        attempts: [
          { attempt: 1, status: ended, evidence: `ended ${ended}` },
          { attempt: 2, status: 'running' },
        ],
        retries: [{ attempt: 2, reason: 'flaky network' }],
      });
    });
  }

  it('completes attempt 2 after a retry', async () => {
    const project = makeProject();
    const runId = await withEndedAttempt(project, 'failed');
    await project.team('state', 'retry', '--run', runId, '--task', 't1', '--reason', 'again');
    await startTask(project, runId);
    expect(await finishTask(project, runId, 'completed')).toMatchObject({ exitCode: 0, stdout: 't1 a2 completed\n' });
    const status = await project.statusJson();
    expect(status.tasks[0]!.status).toBe('completed');
    expect(status.tasks[0]!.attempts.map((a) => a.status)).toEqual(['failed', 'completed']);
  });

  it('refuses to retry a completed task', async () => {
    const project = makeProject();
    const runId = await withEndedAttempt(project, 'completed');
    const before = project.listEvents(runId);
    const result = await project.team('state', 'retry', '--run', runId, '--task', 't1', '--reason', 'again');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state retry: task t1 is completed (attempt 1); a completed task is never retried\n');
    expect(project.listEvents(runId)).toEqual(before);
  });

  it('refuses to retry a task whose attempt is still running', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    await startTask(project, runId);
    const result = await project.team('state', 'retry', '--run', runId, '--task', 't1', '--reason', 'again');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state retry: task t1 attempt 1 is still running; finish it as failed or interrupted first\n');
  });

  it('refuses a second retry of the same attempt', async () => {
    const project = makeProject();
    const runId = await withEndedAttempt(project, 'failed');
    await project.team('state', 'retry', '--run', runId, '--task', 't1', '--reason', 'again');
    const result = await project.team('state', 'retry', '--run', runId, '--task', 't1', '--reason', 'again');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state retry: a retry of task t1 as attempt 2 is already recorded\n');
  });

  it('refuses to retry a task that never started', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const result = await project.team('state', 'retry', '--run', runId, '--task', 't9', '--reason', 'again');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state retry: task t9 has no attempt to retry\n');
  });
});

describe('team state start-task', () => {
  it('refuses to start a task whose latest attempt is running', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    await startTask(project, runId);
    const before = project.listEvents(runId);
    const result = await startTask(project, runId);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state start-task: task t1 attempt 1 is still running (one writer per attempt); finish it first\n');
    expect(project.listEvents(runId)).toEqual(before);
  });

  it('refuses to start a task again after a failure with no recorded retry', async () => {
    const project = makeProject();
    const runId = await withEndedAttempt(project, 'failed');
    const result = await startTask(project, runId);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`team state start-task: task t1 attempt 1 ended failed; record \`team state retry --run ${runId} --task t1 --reason ...\` first\n`);
  });

  it('refuses to start a completed task again', async () => {
    const project = makeProject();
    const runId = await withEndedAttempt(project, 'completed');
    const result = await startTask(project, runId);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state start-task: task t1 is already completed (attempt 1)\n');
  });
});

describe('team state finish-task', () => {
  it('refuses to finish a task that never started', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const result = await finishTask(project, runId, 'completed', 't9');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state finish-task: task t9 has no running attempt; start it with `team state start-task`\n');
    expect(project.listEvents(runId)).toEqual([]);
  });

  it('refuses to finish an attempt twice', async () => {
    const project = makeProject();
    const runId = await withEndedAttempt(project, 'completed');
    const result = await finishTask(project, runId, 'failed');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state finish-task: task t1 has no running attempt (attempt 1 is completed); start it with `team state start-task`\n');
  });

  it('refuses a status that is not terminal', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    await startTask(project, runId);
    const result = await finishTask(project, runId, 'running');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('team state finish-task: --status must be one of completed, failed, interrupted, awaiting_approval, not "running"\n');
  });
});
