// One answer to "does anything drive this run?" in `team status`, `team status --json` and `team
// list`: a run whose orchestrator is alive is running and its attempts need nobody; after a kill -9
// of the orchestrator every reader says nothing drives it and how to continue it.
import { afterEach, describe, expect, it } from 'vitest';
import { GATED_EXECUTOR, lockPid } from '../helpers/detached.js';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { allRoles } from '../helpers/sim-project.js';
import { waitFor } from '../helpers/wait-event.js';

const TWO_SLOW_TASKS = {
  name: 'two-slow-tasks',
  plan: {
    tasks: [
      { id: 'left', title: 'Add the left validator', acceptance: ['released'] },
      { id: 'right', title: 'Add the right validator', acceptance: ['released'] },
    ],
  },
};

const projects: GitProject[] = [];

afterEach(async () => {
  // The run's workers outlive its killed orchestrator: a cancel from the log ends them.
  for (const project of projects.splice(0)) await project.run('cancel', '--force');
  removeProjects();
});

// A git repository (worktrees on) with two gated workers running, detached.
async function startTwoWorkers(): Promise<{ project: GitProject; runId: string }> {
  const project = makeGitProject(TWO_SLOW_TASKS, { agents: { gated: GATED_EXECUTOR }, roles: allRoles('sim', { executor: 'gated' }) });
  projects.push(project);
  const started = await project.run('2:executor', 'validate both sides', '--detach');
  expect(started.exitCode, started.stderr).toBe(0);
  const runId = /teamline run (\S+) runs detached/.exec(started.stdout)![1]!;
  const spawned = () => ['left', 'right'].every((task) => project.listEvents(runId).some((name) => name.includes(`-attempt_spawned-${task}-a1-`)));
  await waitFor('the attempt to be spawned', spawned);
  return { project, runId };
}

describe('commands/status and commands/list (whether anything drives a run)', () => {
  it('shows a driven run as running with nothing needing attention, and a run whose orchestrator was killed as driven by nothing, with the command that continues it', { timeout: 120_000 }, async () => {
    const { project, runId } = await startTwoWorkers();

    const driven = await project.run('status');
    expect(driven.stdout).toContain('  status running\n');
    expect(driven.stdout).toContain('needs attention: nothing');
    expect(driven.stdout).toMatch(/ {2}left +running +Add the left validator/);
    expect(driven.stdout).toMatch(/ {2}right +running +Add the right validator/);
    const drivenJson = JSON.parse((await project.run('status', '--json')).stdout);
    expect(drivenJson).toMatchObject({ status: 'running', driven: true, attention: { notDriven: null, uncertain: [] } });
    const drivenList = await project.run('list');
    expect(drivenList.stdout).toMatch(new RegExp(`${runId} +team +running +`));
    expect(drivenList.stdout).not.toContain('nothing drives');

    process.kill(lockPid(project, runId)!, 'SIGKILL');
    const notDriven = `nothing drives this run: \`team resume --run ${runId}\` continues it, \`team cancel --run ${runId}\` ends it (its orchestrator stopped or died)`;
    await waitFor('the run\'s lock to be released', () => !projectHasLiveLock(project, runId));

    const orphaned = await project.run('status');
    expect(orphaned.stdout).toContain('  status running, nothing drives it\n');
    expect(orphaned.stdout).toContain(`needs attention:\n  ${notDriven}\n`);
    expect(orphaned.stdout).toContain('uncertain: left attempt 1 started with no terminal event');
    expect(orphaned.stdout).toContain('uncertain: right attempt 1 started with no terminal event');
    const orphanedJson = JSON.parse((await project.run('status', '--json')).stdout);
    expect(orphanedJson).toMatchObject({ status: 'running', driven: false, attention: { notDriven } });
    expect(orphanedJson.attention.uncertain).toHaveLength(2);
    const orphanedList = await project.run('list');
    expect(orphanedList.stdout).toMatch(new RegExp(`${runId} +team +running, nothing drives it +`));
    expect(orphanedList.stdout).toContain(`${runId}: ${notDriven}`);
    const listJson = JSON.parse((await project.run('list', '--json')).stdout);
    expect(listJson).toMatchObject([{ id: runId, status: 'running', driven: false }]);
  });
});

function projectHasLiveLock(project: GitProject, runId: string): boolean {
  const pid = lockPid(project, runId);
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
