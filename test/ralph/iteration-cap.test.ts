// `team ralph` whose architect never approves: maxIterations is a hard cap, then the run fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamResult } from '../helpers/team.js';
import { removeProjects } from '../helpers/project.js';
import { eventsNamed, makeRalphProject, summaryLines, type LogEvent, type RalphProject } from './ralph-project.js';

// The sim's reason for its n-th rejection when the scenario gives none (workers/sim/results.ts).
const reasonOf = (review: number) => `sim architect rejects review ${review}`;

// The iterations the run reached: the iteration of each team-plan it entered.
const planIterations = (events: LogEvent[]) => eventsNamed(events, 'stage_entered').filter((e) => e.stage === 'team-plan').map((e) => e.iteration);

describe('team ralph', () => {
  describe('with --max-iterations 3 above the config\'s ralph.maxIterations 1 and no fix loop', () => {
    const CAP = 3;
    let project: RalphProject;
    let run: TeamResult;
    let events: LogEvent[];

    beforeAll(async () => {
      project = makeRalphProject('ralph-never-approved', { ralph: { maxIterations: 1 } });
      run = await project.ralph('1:executor', 'add input validation', '--max-iterations', String(CAP), '--max-fix-loops', '0');
      events = project.events();
    }, 240_000);

    afterAll(() => removeProjects());

    it('fails with exit 1 once the architect has rejected all 3 iterations', () => {
      expect(run.exitCode, run.stderr).toBe(1);
      expect(eventsNamed(events, 'review_result').map((e) => [e.task_id, e.verdict])).toEqual([
        ['review-1', 'reject'],
        ['i2.review-1', 'reject'],
        ['i3.review-1', 'reject'],
      ]);
      const failed = eventsNamed(events, 'run_failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]!.reason).toContain(`not approved after ${CAP} of ${CAP} iterations`);
      expect(failed[0]!.reason).toContain(reasonOf(3));
    });

    it('honours the flag over the config and reaches exactly 3 iterations, never a 4th', () => {
      expect(eventsNamed(events, 'run_started')[0]).toMatchObject({ limits: { maxIterations: CAP, maxFixLoops: 0 } });
      expect(eventsNamed(events, 'iteration_started').map((e) => e.iteration)).toEqual([2, 3]);
      expect(planIterations(events)).toEqual([1, 2, 3]);
      expect(Math.max(...eventsNamed(events, 'stage_entered').map((e) => e.iteration!))).toBe(CAP);
      expect(eventsNamed(events, 'task_started').filter((e) => /^i[4-9]\./.test(e.task_id!))).toEqual([]);
      expect(eventsNamed(events, 'fix_loop_started')).toEqual([]);
    });

    it('prefixes every task id of iteration k with i<k>. and starts each iteration from team-plan', () => {
      const ids = eventsNamed(events, 'task_started').map((e) => e.task_id);
      expect(ids).toEqual(['plan', 't1', 'verify-1', 'review-1', 'i2.plan', 'i2.t1', 'i2.verify-1', 'i2.review-1', 'i3.plan', 'i3.t1', 'i3.verify-1', 'i3.review-1']);
      for (const started of eventsNamed(events, 'iteration_started')) {
        const next = events.slice(events.indexOf(started) + 1).find((e) => e.event === 'stage_entered')!;
        expect([next.stage, next.iteration]).toEqual(['team-plan', started.iteration]);
      }
    });

    it('shows iteration 3 of 3 and the last rejection in team status', async () => {
      const status = await project.team('status');
      expect(status.stdout).toContain(`  iteration ${CAP} of ${CAP}\n`);
      expect(status.stdout).toContain(`  last review: reject — ${reasonOf(3)}\n`);
      const json = await project.statusJson();
      expect(json.status).toBe('failed');
      expect(json.pipeline).toMatchObject({ iteration: CAP, maxIterations: CAP, lastReview: { verdict: 'reject', reasons: [reasonOf(3)] } });
    });

    it('shows in the final summary why the architect rejected each iteration', () => {
      const summary = summaryLines(run.stderr);
      expect(summary[0]).toContain('FAILED');
      for (let k = 1; k < CAP; k++) {
        expect(summary.find((line) => line.startsWith(`iteration ${k}:`)), summary.join('\n')).toContain(reasonOf(k));
      }
      expect(summary.join('\n')).toContain(reasonOf(CAP));
    });

    it('shows in the final summary what each iteration tried, the last one too', () => {
      const summary = summaryLines(run.stderr);
      for (let k = 1; k <= CAP; k++) {
        const task = k === 1 ? 't1' : `i${k}.t1`;
        const line = summary.find((l) => l.startsWith(`iteration ${k}:`));
        expect(line, `no line for iteration ${k} in the summary:\n${summary.join('\n')}`).toBeDefined();
        expect(line, `iteration ${k} names neither its task ${task} nor its fix loops:\n${summary.join('\n')}`).toMatch(new RegExp(`\\b${task.replace('.', '\\.')}\\b|fix loop`));
        expect(line).toContain(reasonOf(k));
      }
    });

    it('refuses to resume the failed run, writing no event: no extension past the cap', async () => {
      const before = project.events().map((e) => e.file);
      const resume = await project.team('resume');
      expect(resume.exitCode).toBe(2);
      expect(resume.stderr).toContain('already ended failed');
      expect(project.events().map((e) => e.file)).toEqual(before);
    });

    it('writes each attempt\'s task_started, and its stage\'s stage_entered, before its worker is spawned', () => {
      for (const spawned of eventsNamed(events, 'attempt_spawned')) {
        const before = events.slice(0, events.indexOf(spawned));
        const started = before.find((e) => e.event === 'task_started' && e.task_id === spawned.task_id && e.attempt === spawned.attempt);
        const firstFiles = events.slice(0, 5).map((e) => e.file).join('\n');
        expect(started, `${spawned.file} is written before the task_started of ${spawned.task_id} a${spawned.attempt}; the log begins:\n${firstFiles}`).toBeDefined();
        expect(before.some((e) => e.event === 'stage_entered'), `${spawned.file} is written before any stage_entered`).toBe(true);
      }
    });
  });

  describe('with ralph.maxIterations 2 from the config', () => {
    let project: RalphProject;
    let run: TeamResult;

    beforeAll(async () => {
      project = makeRalphProject('ralph-never-approved', { ralph: { maxIterations: 2 } });
      run = await project.ralph('1:executor', 'add input validation', '--max-fix-loops', '0');
    }, 240_000);

    afterAll(() => removeProjects());

    it('stops after the second rejected iteration with exit 1 and one iteration_started', () => {
      expect(run.exitCode, run.stderr).toBe(1);
      const events = project.events();
      expect(eventsNamed(events, 'iteration_started').map((e) => e.iteration)).toEqual([2]);
      expect(planIterations(events)).toEqual([1, 2]);
      expect(eventsNamed(events, 'review_result').map((e) => e.verdict)).toEqual(['reject', 'reject']);
    });
  });

  describe('with --max-iterations 1 and one fix loop', () => {
    let project: RalphProject;
    let run: TeamResult;

    beforeAll(async () => {
      project = makeRalphProject('ralph-never-approved');
      run = await project.ralph('1:executor', 'add input validation', '--max-iterations', '1', '--max-fix-loops', '1');
    }, 240_000);

    afterAll(() => removeProjects());

    it('spends the fix loop on the first rejection, then fails on the second without a new iteration', () => {
      expect(run.exitCode, run.stderr).toBe(1);
      const events = project.events();
      expect(eventsNamed(events, 'review_result').map((e) => [e.task_id, e.verdict])).toEqual([
        ['review-1', 'reject'],
        ['review-2', 'reject'],
      ]);
      expect(eventsNamed(events, 'fix_loop_started').map((e) => e.defects)).toEqual([[{ id: 'review-1', description: reasonOf(1) }]]);
      expect(eventsNamed(events, 'iteration_started')).toEqual([]);
      expect(planIterations(events)).toEqual([1]);
      expect(eventsNamed(events, 'run_failed')[0]!.reason).toContain('not approved after 1 of 1 iterations');
    });
  });
});
