// The built `team` CLI retries a worker's failed attempt as a new attempt, and never lets one failure abort the team.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { attemptSpans, makeSimProject, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

describe('pipeline retry', () => {
  describe('a task whose first attempt fails', () => {
    let project: SimProject;
    let result: TeamResult;

    beforeAll(async () => {
      project = makeSimProject('exec-flaky');
      result = await project.team('2:executor', 'add input validation to the API', '--agent', 'sim');
    });

    it('is retried as attempt 2, and the run completes', () => {
      expect(result.exitCode, result.stderr).toBe(0);
      const t2 = attemptSpans(project.readRun().events).filter((s) => s.task === 't2');
      expect(t2.map((s) => [s.attempt, s.status])).toEqual([
        [1, 'failed'],
        [2, 'completed'],
      ]);
      expect(t2[1]!.start).toBeGreaterThanOrEqual(t2[0]!.end);
    });

    it('keeps attempt 1 failed in status, beside the completed attempt 2', async () => {
      const status = project.statusView();
      const t2 = status.tasks.find((t) => t.id === 't2')!;
      expect(t2.status).toBe('completed');
      expect(t2.attempts.map((a) => [a.attempt, a.status])).toEqual([
        [1, 'failed'],
        [2, 'completed'],
      ]);
      const human = await project.team('status');
      expect(human.stdout).toMatch(/^ {4}a1 failed · team-exec/m);
      expect(human.stdout).toMatch(/^ {4}a2 completed · team-exec/m);
    });

    it("records the agent's own reason for the failure with the failed attempt", () => {
      const status = project.statusView();
      const first = status.tasks.find((t) => t.id === 't2')!.attempts[0]!;
      // The sim's failed result says why in its summary: "t2 broke on its first try".
      expect(first.evidence).toContain('t2 broke on its first try');
    });
  });

  it('still gives work to a worker whose one task failed both its attempts', async () => {
    // SPEC 1: "a worker that failed 2 tasks gets no more work"; worker-1 failed one task (t1, twice).
    const project = makeSimProject('e2e-task-always-fails');
    await project.team('1:executor', 'add input validation to the API', '--agent', 'sim', '--max-fix-loops', '0');
    const spans = attemptSpans(project.readRun().events);
    expect(spans.filter((s) => s.task === 't1').map((s) => s.status)).toEqual(['failed', 'failed']);
    expect(spans.filter((s) => s.task === 't2').map((s) => s.status)).toEqual(['completed']);
  });
});
