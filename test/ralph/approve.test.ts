// `team ralph` whose architect approves the first review: one iteration, no fix loop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamResult } from '../helpers/team.js';
import { removeProjects } from '../helpers/project.js';
import { eventsNamed, makeRalphProject, summaryLines, type LogEvent, type RalphProject } from './ralph-project.js';

describe('team ralph', () => {
  let project: RalphProject;
  let run: TeamResult;
  let events: LogEvent[];

  beforeAll(async () => {
    project = makeRalphProject('ralph-approves');
    run = await project.ralph('2:executor', 'add input validation', '--max-iterations', '4');
    events = project.events();
  }, 180_000);

  afterAll(() => removeProjects());

  it('completes with exit 0 when the architect approves the first review', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    expect(eventsNamed(events, 'run_completed')).toHaveLength(1);
    expect(summaryLines(run.stderr)[0]).toContain('COMPLETED');
  });

  it('asks the architect once, as review-1 in stage ralph-review, after a passing verify', () => {
    const reviews = eventsNamed(events, 'review_result');
    expect(reviews.map((e) => [e.task_id, e.verdict, e.reasons])).toEqual([['review-1', 'approve', []]]);
    const started = eventsNamed(events, 'task_started').find((e) => e.task_id === 'review-1')!;
    expect(started.stage).toBe('ralph-review');
    const verdicts = eventsNamed(events, 'verify_result').map((e) => e.verdict);
    expect(verdicts).toEqual(['pass']);
    expect(events.indexOf(eventsNamed(events, 'verify_result')[0]!)).toBeLessThan(events.indexOf(reviews[0]!));
  });

  it('runs one iteration with no fix loop', () => {
    expect(eventsNamed(events, 'iteration_started')).toEqual([]);
    expect(eventsNamed(events, 'fix_loop_started')).toEqual([]);
    expect(new Set(eventsNamed(events, 'stage_entered').map((e) => e.iteration))).toEqual(new Set([1]));
  });

  it('shows iteration 1 of the --max-iterations cap in team status and its JSON', async () => {
    const status = await project.team('status');
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain('  iteration 1 of 4\n');
    expect(status.stdout).toContain('  last review: approve\n');
    const json = await project.statusJson();
    expect(json.status).toBe('completed');
    expect(json.pipeline).toMatchObject({ iteration: 1, maxIterations: 4, loop: 0, lastReview: { verdict: 'approve', reasons: [] } });
  });

  it('ends with an approving ralph-review handoff', () => {
    const last = project.handoffs().at(-1)!;
    expect(last.name).toMatch(/^\d+-ralph-review\.md$/);
    expect(last.text.split('\n')[0]).toBe('## Handoff: ralph-review → end (completed)');
  });
});
