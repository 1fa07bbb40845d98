// The integration branch team/<run> is teamline's record: an agent that deletes it or moves it
// after a merge finds it restored from the commit the log recorded, never re-made from the base.
// The agents run unfenced (team.fence "off"): the fence refuses a ref's deletion (packed-refs is the
// repository's), and moves only team/ branches.
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, showFile } from '../helpers/git-project.js';

afterAll(removeProjects);

const UNFENCED = { team: { fence: 'off' } };

// t1 and t2 run side by side; t2's agent waits until t1 is merged, then does `shell` to the
// integration branch (t2's own branch does not hold t1's work).
function twoTasks(shell: string) {
  const afterT1 = 'until git cat-file -e "team/$TEAM_RUN_ID:sim-output/t1.txt" 2>/dev/null; do sleep 0.05; done';
  return {
    plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] },
    rules: [{ match: { task: 't2' }, do: { shell: `${afterT1}; ${shell}` } }],
  };
}

describe('worktree isolation: the integration branch kept as recorded', () => {
  it('restores team/<run> an agent deleted from the commit of the last merge, with the merged work in it', async () => {
    const project = makeGitProject(twoTasks('git update-ref -d "refs/heads/team/$TEAM_RUN_ID"'), UNFENCED);
    const result = await project.run('2:executor', 'lose the integration branch', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const branch = `team/${run.runId}`;
    const t1Merge = eventsOf(run.events, 'merge_done').find((e) => e.task_id === 't1')!;
    expect(showFile(project, branch, 'sim-output/t1.txt')).toContain('task t1 attempt 1');
    expect(showFile(project, branch, 'sim-output/t2.txt')).toContain('task t2 attempt 1');
    expect(eventsOf(run.events, 'branch_restored').map((e) => [e.branch, e.commit, e.was, e.kept])).toEqual([[branch, t1Merge.commit, undefined, undefined]]);
    expect(eventsOf(run.events, 'worktree_stashed')).toEqual([]);
    expect(result.stderr).toContain(`${branch} was deleted while the run ran: restored at ${t1Merge.commit.slice(0, 10)}, the commit the log recorded`);
  });

  it('puts team/<run> an agent moved back at the recorded commit and keeps what it pointed to under another name', async () => {
    const shell = 'moved=$(echo "an agent moved it" | git commit-tree "team/$TEAM_RUN_ID^{tree}" -p "team/$TEAM_RUN_ID") && git update-ref "refs/heads/team/$TEAM_RUN_ID" "$moved"';
    const project = makeGitProject(twoTasks(shell), UNFENCED);
    const result = await project.run('2:executor', 'move the integration branch', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const branch = `team/${run.runId}`;
    const t1Merge = eventsOf(run.events, 'merge_done').find((e) => e.task_id === 't1')!;
    const [restored] = eventsOf(run.events, 'branch_restored');
    expect(restored, result.stderr).toBeDefined();
    expect(restored).toMatchObject({ branch, commit: t1Merge.commit, kept: `${branch}-kept/integration-${restored!.was!.slice(0, 10)}` });
    expect(project.git('log', '-1', '--format=%s', restored!.kept!)).toBe('an agent moved it');
    expect(project.git('log', '--format=%s', branch)).not.toContain('an agent moved it');
    expect(project.git('merge-base', '--is-ancestor', t1Merge.commit, branch)).toBe('');
    expect(showFile(project, branch, 'sim-output/t2.txt')).toContain('task t2 attempt 1');
    expect(result.stderr).toContain(`${branch} had moved to ${restored!.was!.slice(0, 10)} while the run ran (kept as ${restored!.kept}): restored at ${t1Merge.commit.slice(0, 10)}, the commit the log recorded`);
  });

  it('puts team/<run> back when the last stage\'s agent deleted it, before the run ends', async () => {
    const project = makeGitProject({ plan: { count: 1 }, rules: [{ match: { stage: 'team-verify' }, do: { shell: 'git update-ref -d "refs/heads/team/$TEAM_RUN_ID"' } }] }, UNFENCED);
    const result = await project.run('2:executor', 'lose the branch in verify', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const t1Merge = eventsOf(run.events, 'merge_done')[0]!;
    expect(project.git('rev-parse', `team/${run.runId}`)).toBe(t1Merge.commit);
    expect(eventsOf(run.events, 'branch_restored').map((e) => e.commit)).toEqual([t1Merge.commit]);
    const status = await project.run('status');
    expect(status.stdout).toContain(`needs attention:\n  team/${run.runId} was deleted during the run; put back at ${t1Merge.commit.slice(0, 10)}, the commit the log recorded`);
  });
});
