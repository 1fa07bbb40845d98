// `team ralph` whose architect rejects the first review: the reasons become defects, a fix loop, then approval.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamResult } from '../helpers/team.js';
import { removeProjects } from '../helpers/project.js';
import { eventsNamed, makeRalphProject, type LogEvent, type RalphProject } from './ralph-project.js';

// The reasons in test/fixtures/scenarios/ralph-rejects-once.json.
const REASONS = ['Error messages do not say which field is wrong.', 'No test covers an empty name.'];

describe('team ralph', () => {
  let project: RalphProject;
  let run: TeamResult;
  let events: LogEvent[];

  beforeAll(async () => {
    project = makeRalphProject('ralph-rejects-once');
    run = await project.ralph('2:executor', 'add input validation', '--max-iterations', '3');
    events = project.events();
  }, 180_000);

  afterAll(() => removeProjects());

  it('completes with exit 0 when the architect rejects once and then approves', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    const reviews = eventsNamed(events, 'review_result').map((e) => [e.task_id, e.verdict, e.reasons]);
    expect(reviews).toEqual([
      ['review-1', 'reject', REASONS],
      ['review-2', 'approve', []],
    ]);
    expect(eventsNamed(events, 'run_completed')).toHaveLength(1);
  });

  it('turns the rejection reasons into the defects review-1, review-2 of one fix loop, in the same iteration', () => {
    const loops = eventsNamed(events, 'fix_loop_started');
    expect(loops.map((e) => [e.iteration, e.loop])).toEqual([[1, 1]]);
    expect(loops[0]!.defects).toEqual([
      { id: 'review-1', description: REASONS[0] },
      { id: 'review-2', description: REASONS[1] },
    ]);
    expect(eventsNamed(events, 'iteration_started')).toEqual([]);
  });

  it('runs one fix task per reason, named after its review defect, and verifies again before the second review', () => {
    const fixIds = eventsNamed(events, 'task_finished').filter((e) => e.stage === 'team-fix');
    expect(fixIds.map((e) => [e.task_id, e.status]).sort()).toEqual([
      ['fix-1-review-1', 'completed'],
      ['fix-1-review-2', 'completed'],
    ]);
    const order = events.filter((e) => ['review_result', 'verify_result', 'fix_loop_started'].includes(e.event)).map((e) => e.task_id ?? e.event);
    expect(order).toEqual(['verify-1', 'review-1', 'fix_loop_started', 'verify-2', 'review-2']);
  });

  it('gives each fix agent the architect\'s reason in its prompt', () => {
    const runDir = project.runDir(project.runId());
    REASONS.forEach((reason, i) => {
      const prompt = readFileSync(join(runDir, 'attempts', `fix-1-review-${i + 1}`, 'a1', 'prompt.md'), 'utf8');
      expect(prompt).toContain(reason);
    });
  });

  it('shows the rejection reasons in the first ralph-review handoff and the approval in the last', () => {
    const reviews = project.handoffs().filter((h) => h.name.endsWith('-ralph-review.md'));
    expect(reviews).toHaveLength(2);
    expect(reviews[0]!.text.split('\n')[0]).toBe('## Handoff: ralph-review → team-fix');
    for (const reason of REASONS) expect(reviews[0]!.text).toContain(reason);
    expect(reviews[1]!.text.split('\n')[0]).toBe('## Handoff: ralph-review → end (completed)');
  });

  it('reports the approving review as the last one in team status --json', async () => {
    const json = await project.statusJson();
    expect(json.status).toBe('completed');
    expect(json.pipeline).toMatchObject({ iteration: 1, maxIterations: 3, loop: 1, lastReview: { verdict: 'approve', reasons: [] } });
  });
});
