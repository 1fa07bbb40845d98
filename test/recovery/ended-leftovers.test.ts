// A kill -9 right after a run's end record, before its orchestrator ended the run's tmux server,
// leaves that server: `team resume` has nothing to resume, but ends what the run left.
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
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
});
