// The best of N end to end (issue 38): the built `team` CLI, the sim agent in real processes, a real
// git repository, the fence as a user gets it, two workers. t1 runs as two candidates at once, each in
// its own worktree; c1's work breaks the gate (it leaves a file named `broken`), c2's does not. Each
// candidate's gate runs in its own folder; the selector is told both and picks c2, whose branch is
// merged; c1's branch is kept, not merged; t2, which waits for t1, starts on the merged work.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_ENV, makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { allOverlap, attemptSpans, eventsOf, type RunRead } from '../helpers/sim-project.js';
import { CLI, type TeamResult } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

afterAll(removeProjects);

const GATE = 'test ! -e broken';
const task = (id: string, extra: Record<string, unknown>) => ({ id, title: `Task ${id}`, acceptance: ['ok'], ...extra });
const scenario = (extra: { rules?: object[]; sleepMs?: number } = {}) => ({
  plan: { tasks: [task('t1', { bestOf: 2, files: ['greeting.txt'] }), task('t2', { blockedBy: ['t1'], files: ['after.txt'] })] },
  rules: [
    { match: { stage: 'team-exec', task: 't1--c1' }, do: { sleepMs: extra.sleepMs ?? 300, files: [{ path: 'greeting.txt', content: 'hello from c1\n' }, { path: 'broken', content: 'x\n' }] } },
    { match: { stage: 'team-exec', task: 't1--c2' }, do: { sleepMs: extra.sleepMs ?? 300, files: [{ path: 'greeting.txt', content: 'hello from c2\n' }] } },
    { match: { stage: 'team-exec', task: 't2' }, do: { files: [{ path: 'after.txt', content: 'after\n' }] } },
    ...(extra.rules ?? []),
  ],
});
const CONFIG = { verify: { commands: [GATE] } };

describe('the best of N with the sim agent', () => {
  let project: GitProject;
  let result: TeamResult;
  let run: RunRead;

  beforeAll(async () => {
    project = makeGitProject(scenario(), CONFIG);
    result = await project.run('2:executor', 'greet the user', '--agent', 'sim');
    run = project.readRun();
  }, 120_000);

  it('completes, with the candidate whose gate passed merged and the other kept as a branch', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(project.git('show', `team/${run.runId}:greeting.txt`)).toBe('hello from c2');
    expect(() => project.git('show', `team/${run.runId}:broken`)).toThrow();
    expect(eventsOf(run.events, 'candidate_picked').map((e) => [e.task_id, e.pick, e.branch])).toEqual([['t1', 't1--c2', `team/${run.runId}--t1--c2`]]);
    expect(eventsOf(run.events, 'merge_done').find((e) => e.task_id === 't1')!.branch).toBe(`team/${run.runId}--t1--c2`);
    expect(project.git('show', `team/${run.runId}--t1--c1:greeting.txt`)).toBe('hello from c1');
    expect(eventsOf(run.events, 'fix_loop_started')).toEqual([]);
  });

  it('runs the two candidates at once, each in its own worktree, and each one\'s gate in its own folder', () => {
    const spans = attemptSpans(run.events);
    expect(allOverlap(spans.filter((s) => s.task.startsWith('t1--c')))).toBe(true);
    const ready = eventsOf(run.events, 'worktree_ready').filter((e) => e.task_id.startsWith('t1--c'));
    expect(new Set(ready.map((e) => e.path)).size).toBe(2);
    expect(eventsOf(run.events, 'candidate_gated').map((e) => [e.task_id, e.candidate_of, e.gates.map((g) => [g.command, g.exitCode])]).sort()).toEqual([
      ['t1--c1', 't1', [[GATE, 1]]],
      ['t1--c2', 't1', [[GATE, 0]]],
    ]);
  });

  it('starts the selector once both candidates ended, and what waits for t1 once the pick is merged', () => {
    const names = run.events.map((e) => `${e.event} ${'task_id' in e ? e.task_id : ''}`);
    const selector = names.indexOf('task_started t1');
    expect(selector).toBeGreaterThan(names.indexOf('task_finished t1--c1'));
    expect(selector).toBeGreaterThan(names.indexOf('task_finished t1--c2'));
    expect(names.indexOf('task_started t2')).toBeGreaterThan(names.indexOf('merge_done t1'));
    expect(project.git('show', `team/${run.runId}--t2:greeting.txt`)).toBe('hello from c2');
  });

  it('tells the selector each candidate\'s agent, gates, change and branch, and says what it picked and why', () => {
    const prompt = readFileSync(join(run.paths.runDir, 'attempts', 't1', 'a1', 'prompt.md'), 'utf8');
    expect(prompt).toMatch(new RegExp(`^- t1--c1 \\(sim\\): completed; gates failed: \`${GATE}\` exited 1; 2 files changed, 2 insertions\\(\\+\\); branch team/${run.runId}--t1--c1; summary: `, 'm'));
    expect(prompt).toMatch(new RegExp(`^- t1--c2 \\(sim\\): completed; gates passed \\(1 of 1\\); 1 file changed, 1 insertion\\(\\+\\); branch team/${run.runId}--t1--c2;`, 'm'));
    expect(result.stderr).toContain('▶ t1 a1 started on');
    expect(result.stderr).toContain('(the selector of 2 candidates, agent sim)');
    const finished = eventsOf(run.events, 'task_finished').find((e) => e.task_id === 't1')!;
    expect(finished.evidence).toMatch(/^picked t1--c2 \(sim\): sim: t1--c2 completed and its gates passed — /);
    expect(finished.artifacts).toEqual(['greeting.txt']);
  });

  it('shows the candidates\' branches in the status: the one merged, the one kept', async () => {
    const status = await project.run('status');
    expect(status.stdout).toContain(`t1--c1: team/${run.runId}--t1--c1 not picked — a candidate the selector did not pick, kept until \`team clean\``);
    expect(status.stdout).toContain(`t1--c2: team/${run.runId}--t1--c2 picked — the candidate merged`);
  });
});

describe('the best of N: a pick that cannot be merged', () => {
  it('fails the selector\'s attempt that picks the candidate whose gate failed, and merges the next attempt\'s pick', async () => {
    const project = makeGitProject(scenario({ rules: [{ match: { task: 't1', attempt: 1 }, do: { pick: 'c1' } }] }), CONFIG);
    const result = await project.run('2:executor', 'greet the user', '--agent', 'sim');
    const run = project.readRun();
    expect(result.exitCode, result.stderr).toBe(0);
    const ends = eventsOf(run.events, 'task_finished').filter((e) => e.task_id === 't1').map((e) => [e.attempt, e.status, e.evidence.split(' — ')[0]]);
    expect(ends[0]).toEqual([1, 'failed', "the selector's pick cannot be merged: t1--c1 failed its gates while t1--c2 passed them"]);
    expect(ends[1]!.slice(0, 2)).toEqual([2, 'completed']);
    expect(eventsOf(run.events, 'candidate_picked').map((e) => [e.attempt, e.pick])).toEqual([[2, 't1--c2']]);
    expect(project.git('show', `team/${run.runId}:greeting.txt`)).toBe('hello from c2');
  }, 120_000);
});

describe('the best of N across kill -9', () => {
  it('judges candidates that finished while no orchestrator watched once, after a resume', async () => {
    const project = makeGitProject(scenario({ sleepMs: 4_000 }), CONFIG);
    // The orchestrator alone is killed: the candidates' agents, each in a process group of its own, go on and finish.
    const child = spawn(process.execPath, [CLI, '2:executor', 'greet the user', '--agent', 'sim'], { cwd: project.dir, env: { ...process.env, ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const spawned = () => {
      try {
        return eventsOf(project.readRun().events, 'attempt_spawned').filter((e) => e.task_id.startsWith('t1--c')).length === 2;
      } catch {
        return false;
      }
    };
    await waitFor('both candidates to start', spawned, 60_000);
    child.kill('SIGKILL');
    await exited;
    // Both candidates finish their work with no orchestrator to watch them.
    await waitFor('both candidates to finish', () => project.ledger().filter((l) => l.task.startsWith('t1--c')).length === 2, 60_000);
    const resumed = await project.run('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const run = project.readRun();
    expect(eventsOf(run.events, 'candidate_gated').map((e) => e.task_id).sort()).toEqual(['t1--c1', 't1--c2']);
    expect(eventsOf(run.events, 'candidate_picked').map((e) => e.pick)).toEqual(['t1--c2']);
    expect(eventsOf(run.events, 'task_started').filter((e) => e.task_id === 't1')).toHaveLength(1);
    // Each candidate's agent and the selector worked once.
    expect(project.ledger().map((l) => l.task).filter((t) => t.startsWith('t1')).sort()).toEqual(['t1', 't1--c1', 't1--c2']);
    expect(project.git('show', `team/${run.runId}:greeting.txt`)).toBe('hello from c2');
  }, 180_000);
});

describe('the best of N: bad input', () => {
  it('refuses a --best-of or a team.bestOf out of range, naming it, before a run starts', async () => {
    const project = makeGitProject(scenario(), CONFIG);
    for (const [value, words] of [['9', 'team: --best-of must be a whole number from 1 to 8, not "9"'], ['two', 'team: --best-of must be a whole number from 1 to 8, not "two"']] as const) {
      const result = await project.run('2:executor', 'greet the user', '--agent', 'sim', '--best-of', value);
      expect([result.exitCode, result.stderr.trim()]).toEqual([2, words]);
    }
    project.write('.team/config.json', JSON.stringify({ ...CONFIG, team: { bestOf: 0 }, agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } }));
    const result = await project.run('2:executor', 'greet the user', '--agent', 'sim');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('→ at team.bestOf');
    expect(() => project.readRun()).toThrow();
  }, 60_000);
});
