// File ownership end to end (issue 38): the built `team` CLI, the sim agent in real processes, a
// real git repository and three workers. t1 and t2 both claim src/app.ts and each rewrites it; t3
// claims docs/ and also writes a file it did not declare. With the claims, t2 starts only after t1
// ended (on t1's merged work), t3 runs beside them, and the run completes with no conflict and no fix
// loop; t3's stray file is recorded at its merge and told. Without the scheduler's rule, t1 and t2
// edit the same file at once and the second merge conflicts (checked by removing it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHandoffs } from '../../handoffs/read.js';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { allOverlap, attemptSpans, eventsOf, type RunRead } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

const task = (id: string, files: string[]) => ({ id, title: `Task ${id}`, acceptance: ['ok'], files });
const SCENARIO = {
  plan: { tasks: [task('t1', ['src/app.ts']), task('t2', ['src/app.ts', 'src/util.ts']), task('t3', ['docs/**'])] },
  rules: [
    { match: { stage: 'team-exec', task: 't1' }, do: { sleepMs: 500, files: [{ path: 'src/app.ts', content: 'export const app = "t1";\n' }] } },
    { match: { stage: 'team-exec', task: 't2' }, do: { sleepMs: 500, files: [{ path: 'src/app.ts', content: 'export const app = "t2";\n' }, { path: 'src/util.ts', content: 'export const util = 2;\n' }] } },
    { match: { stage: 'team-exec', task: 't3' }, do: { sleepMs: 1_500, files: [{ path: 'docs/app.md', content: '# app\n' }, { path: 'notes.txt', content: 'not declared\n' }] } },
  ],
};

describe('file ownership with the sim agent', () => {
  let project: GitProject;
  let result: TeamResult;
  let run: RunRead;

  beforeAll(async () => {
    project = makeGitProject(SCENARIO, {}, { 'src/app.ts': 'export const app = "base";\n' });
    result = await project.run('3:executor', 'rework the app', '--agent', 'sim');
    if (result.exitCode !== 0 && result.exitCode !== 1) throw new Error(`team exited ${result.exitCode}: ${result.stderr}`);
    run = project.readRun();
  }, 120_000);

  it('completes with no merge conflict and no fix loop', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(eventsOf(run.events, 'fix_loop_started')).toEqual([]);
    expect(eventsOf(run.events, 'merge_failed')).toEqual([]);
    expect(project.git('show', `team/${run.runId}:src/app.ts`)).toBe('export const app = "t2";');
  });

  it('runs the two tasks that claim src/app.ts one after the other, and the task apart beside them', () => {
    const spans = attemptSpans(run.events);
    const span = (id: string) => spans.find((s) => s.task === id)!;
    const [first, second] = [span('t1'), span('t2')].sort((a, b) => a.start - b.start);
    expect(second!.start).toBeGreaterThanOrEqual(first!.end);
    // The later one started once the earlier one's end was recorded.
    const names = run.events.map((e) => `${e.event} ${'task_id' in e ? e.task_id : ''}`);
    expect(names.indexOf(`task_started ${second!.task}`)).toBeGreaterThan(names.indexOf(`task_finished ${first!.task}`));
    expect(allOverlap([span('t3'), first!])).toBe(true);
  });

  it('records and tells the file t3 changed outside what the plan gave it, and only that one', async () => {
    expect(eventsOf(run.events, 'files_strayed').map((e) => [e.task_id, e.attempt, e.paths, e.more])).toEqual([['t3', 1, ['notes.txt'], 0]]);
    const line = 't3 a1 changed files outside what the plan gave it: notes.txt';
    expect(result.stderr).toContain(line);
    const status = await project.run('status');
    expect(status.stdout).toContain(line);
  });

  it('works the plan on as many workers as it is wide: 3 asked, 2 work, and says so', () => {
    expect(eventsOf(run.events, 'workers_sized').map((e) => [e.asked, e.width, e.workers])).toEqual([[3, 2, ['worker-1', 'worker-2']]]);
    expect(new Set(eventsOf(run.events, 'attempt_spawned').map((e) => e.worker))).not.toContain('worker-3');
    expect(result.stderr).toContain('3 workers asked, the plan is 2 wide: 2 work on it (worker-1, worker-2)');
  });

  it('shows each task\'s files in the plan handoff, and the shared claim among its risks', () => {
    const plan = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-plan')!.text;
    expect(plan).toContain('t1 "Task t1" → worker-1; no dependencies; owns src/app.ts');
    expect(plan).toContain('t1 and t2 both claim src/app.ts: they run one after the other');
  });
});
