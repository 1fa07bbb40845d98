// A kill -9 right after a run's end record, before its orchestrator ended the run's tmux server or
// stopped its last attempts' escapees, leaves them: `team resume` has nothing to resume, but ends
// what the run left.
import { spawn } from 'node:child_process';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive, readPidStart, signalProcess, waitUntil } from '../../src/sys/proc.js';
import { tmuxServerAnswers } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';

describe('team resume of a run that ended', () => {
  afterEach(removeRecoveryProjects);

  it('ends the tmux server a crash after the end left behind, refuses with exit 2, and writes no event', { timeout: 120_000 }, async () => {
    const project = makeRecoveryProject('quick', { tmux: true });
    const ran = await project.team('1:executor', 'a run to leave a server behind', '--agent', 'sim', '--tmux');
    expect(ran.exitCode, ran.stderr).toBe(0);
    const runId = project.runId();
    expect(await tmuxServerAnswers(runId, project.tmuxDir!)).toBe(false);
    // What the crash would have left: the run's own server, still up.
    const env = { ...process.env, TMUX: undefined, TMUX_TMPDIR: project.tmuxDir };
    await execa('tmux', ['-L', `team-${runId}`, 'new-session', '-d', '-s', 'left', 'sleep 600'], { env, stdin: 'ignore' });
    expect(await tmuxServerAnswers(runId, project.tmuxDir!)).toBe(true);
    const before = project.eventNames();

    const resumed = await project.team('resume');

    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(`run ${runId} already ended completed; there is nothing to resume`);
    expect(await tmuxServerAnswers(runId, project.tmuxDir!)).toBe(false);
    expect(project.eventNames()).toEqual(before);
  });

  it('stops an escapee of a finished attempt that a crash before its stop left running, and no other process of the run', { timeout: 120_000 }, async () => {
    const project = makeRecoveryProject('quick');
    const ran = await project.team('1:executor', 'a run to leave an escapee behind', '--agent', 'sim');
    expect(ran.exitCode, ran.stderr).toBe(0);
    const runId = project.runId();
    const finished = project.events().find((e) => e.event === 'task_finished' && e.stage === 'team-exec')!;
    // What the crash would have left: a process in a session of its own with the finished attempt's
    // marker (as an agent's `setsid` daemon), and one with the marker of an attempt the run never had.
    const start = (task: string, attempt: number) => {
      const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore', env: { ...process.env, TEAM_RUN_ID: runId, TEAM_TASK_ID: task, TEAM_ATTEMPT: String(attempt) } });
      return { pid: child.pid!, start: readPidStart(child.pid!)! };
    };
    const escapee = start(String(finished.task_id), Number(finished.attempt));
    const stranger = start(String(finished.task_id), Number(finished.attempt) + 5);
    try {
      const resumed = await project.team('resume');
      expect(resumed.exitCode).toBe(2);
      expect(await waitUntil(() => !isProcessAlive(escapee.pid, escapee.start), 5_000)).toBe(true);
      expect(isProcessAlive(stranger.pid, stranger.start)).toBe(true);
    } finally {
      for (const p of [escapee, stranger]) if (isProcessAlive(p.pid, p.start)) signalProcess(p.pid, 'SIGKILL');
    }
  });
});
