// A run started with --config FILE, its orchestrator killed with kill -9: `team resume` goes on with
// that file, refuses a config that lacks the run's agent before recording anything, and an adopted
// attempt whose effect fails leaves no process behind.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAsRepo } from '../helpers/git-project.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { ended, isAlive, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitForEvent } from '../helpers/wait-event.js';
import { expectCleanCompletion, finishes, type Handle } from './reconcile-run.js';

// A git project with two workers (worktrees) whose agents (`paid`, and those named) are only in .team/paid.json.
function makePaidProject(t1SleepMs: number, scenarioName = 'two-slow', more: string[] = []): { project: RecoveryProject; paidFile: string } {
  const project = makeRecoveryProject(scenarioName);
  const scenarioFile = join(project.dir, 'scenario.json');
  const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8')) as { rules: Array<{ do: { sleepMs: number } }> };
  scenario.rules[0]!.do.sleepMs = t1SleepMs;
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  const paidFile = join(project.dir, '.team', 'paid.json');
  const agents = Object.fromEntries(['paid', ...more].map((name) => [name, { adapter: 'sim', scenario: scenarioFile }]));
  writeFileSync(paidFile, JSON.stringify({ team: { shutdownTimeoutMs: 500 }, agents }));
  writeFileSync(join(project.dir, '.team', 'other.json'), JSON.stringify({ team: { shutdownTimeoutMs: 500 }, agents: { paid: agents.paid } }));
  commitAsRepo(project.dir);
  // The sim's ledger outside the worktrees the agents work in.
  project.env.TEAM_SIM_LEDGER = join(project.dir, '.team', 'sim-ledger.jsonl');
  return { project, paidFile };
}

// Starts the run with --config and kills its orchestrator once `task` a1's worker is recorded.
async function killDuringExec(project: RecoveryProject, task = 't1'): Promise<Handle> {
  const orchestrator = project.spawn('2:executor', 'resume with the config it started with', '--agent', 'paid', '--config', '.team/paid.json');
  const spawned = await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === task && e.attempt === 1, { stopIf: ended(orchestrator) });
  await killOrchestrator(orchestrator);
  return spawned.handle as Handle;
}

describe('team resume (the config a run started with)', () => {
  afterEach(removeRecoveryProjects);

  it('refuses a config lacking the run\'s agent with nothing recorded, then resumes with the config the run started with', { timeout: 60_000 }, async () => {
    const { project, paidFile } = makePaidProject(4_000);
    const handle = await killDuringExec(project);
    const before = project.eventNames();
    writeFileSync(join(project.dir, '.team', 'other.json'), JSON.stringify({ agents: {} }));

    for (const args of [['resume', '--config', '.team/other.json'], ['resume', '--config', '.team/other.json', '--detach']]) {
      const refused = await project.team(...args);
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`team resume: the run uses agent "paid", which config ${join(project.dir, '.team', 'other.json')} does not define (it started with --config ${paidFile}): pass --config with a file that defines it under "agents"`);
      expect(project.eventNames()).toEqual(before);
    }
    expect(isAlive(handle), 'a refused resume leaves the worker to the next one').toBe(true);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`teamline: using the config the run started with: ${paidFile} (--config chooses another)`);
    expect(resumed.stderr).toContain('t1 a1 re-adopted, still running');
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    await expectCleanCompletion(project, ['plan', 't1', 't2', 'verify-1']);
  });

  it('stops an adopted worker whose attempt fails in the orchestrator before recording its end', { timeout: 60_000 }, async () => {
    const { project } = makePaidProject(30_000);
    const handle = await killDuringExec(project);
    // t1's worktree loses its link to the repository (its .git file): git prunes it and cannot add it
    // again over the folder, so the adopted attempt's effect fails while its worker sleeps on.
    const ready = project.events().find((e) => e.event === 'worktree_ready' && e.task_id === 't1')!;
    rmSync(join(String(ready.path), '.git'));
    expect(isAlive(handle), 'the worker outlives its orchestrator and its worktree').toBe(true);

    await project.team('resume');

    const ended = project.events().find((e) => e.event === 'task_finished' && e.task_id === 't1' && e.attempt === 1)!;
    expect(String(ended.evidence)).toMatch(/^internal error: /);
    expect(isAlive(handle), 'the adopted worker is stopped').toBe(false);
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
  });

  it('stops the run, resumable and with nothing recorded against the task, when an attempt meets an agent the config lacks', { timeout: 60_000 }, async () => {
    // The planner tags t1 for agent `spare`, which the config given to the resume does not define.
    const { project } = makePaidProject(2_500, 'tagged-plan', ['spare']);
    await killDuringExec(project, 'plan');

    const stopped = await project.team('resume', '--config', '.team/other.json');

    expect(stopped.exitCode, stopped.stderr).toBe(2);
    expect(stopped.stderr).toContain('t1 a1: unknown agent "spare": add it under "agents" in .team/config.json, or resume with --config naming a file that defines it; the run stopped and can be resumed');
    expect(project.events().filter((e) => e.event === 'task_finished' && e.task_id === 't1')).toEqual([]);
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    await expectCleanCompletion(project, ['plan', 't1', 't2', 'verify-1']);
  });
});
